/**
 * The storage endpoint behind the sasUri of PrepareUpload: `PUT /storage/uploads/<fileid>?<signed
 * query>`. No bearer token: the HMAC signature in the query is the credential (expired or wrong
 * gives 403), and the query string is never logged (request logging is off on this route). Takes
 * the three upload styles real clients use, all streamed to disk:
 * - multipart/form-data with a part named `file` (the spec; scripts), parsed with busboy;
 * - a raw body with `x-ms-blob-type: BlockBlob` (Azure Blob SDK, small files);
 * - Azure blocks: `&comp=block&blockid=<base64>` bodies, then `&comp=blocklist` with the XML list.
 * Success is 201 with an empty body; errors come as Azure-style XML `<Error><Code/><Message/>`.
 * After an error the unread rest of the body is read and dropped when it is at most
 * DRAIN_LIMIT bytes, so the keep-alive connection goes on; a longer rest gets the answer with
 * `Connection: close` instead (request-body.ts).
 */
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BlockCountError } from './uncommitted-blocks.js';
import { ValidationError, errorMessage, hasErrorCode } from '../../lib/errors.js';
import { FILE_CHUNK } from '../../lib/file-sink.js';
import type { Logger } from '../../log/logger.js';
import { parseBlockList } from '../../protocol/sfapi-block-list.js';
import { drainBody, lingerOnClose, readText } from './request-body.js';
import { type DocumentedRequest, NoContent, operation, otherContent } from '../http/schemas.js';
import { Type as T } from '@sinclair/typebox';
import { type FileStore, type StoredFile, TooLargeError } from './file-store.js';

/** Path prefix of upload URLs; the file id follows. */
export const STORAGE_UPLOAD_PREFIX = '/storage/uploads/';

/** Largest XML block list read (50,000 blocks of 64-byte ids fit). */
const MAX_BLOCK_LIST_BYTES = 8 * 1024 * 1024;

/** The most of an unread body dropped after an error to keep the connection (16 MiB). */
const DRAIN_LIMIT = 16 * 1024 * 1024;

/** The store uploads go to (shared with the /sfapi/ routes) and a logger. */
export interface StorageRoutesOptions {
  files: FileStore;
  logger: Logger;
}

const xmlError = (description: string) =>
  otherContent('application/xml', `${description} (<Error><Code/><Message/>)`);

/** The upload route in the OpenAPI document: Azure Blob style, errors in XML. */
const storageSchema = {
  tags: ['sfapi'],
  description: 'The sasUri of PrepareUpload: multipart (part "file"), a BlockBlob body, or Azure blocks.',
  response: {
    201: NoContent,
    400: xmlError('InvalidInput'),
    403: xmlError('AuthenticationFailed: expired or wrong signature'),
    404: xmlError('BlobNotFound'),
    409: xmlError(
      'BlobImmutable: already uploaded or printed; BlockCountExceedsLimit: too many uncommitted blocks',
    ),
    413: xmlError('RequestBodyTooLarge'),
    500: xmlError('InternalError'),
  },
};

const signed = (description: string) => T.Optional(T.String({ description }));

/** The upload request: the signed query of the sasUri, plus Azure's block parameters. */
const storageRequest = {
  querystring: T.Object(
    {
      sv: signed('signed: storage version'),
      sr: signed('signed: resource (b)'),
      sp: signed('signed: permissions (cw)'),
      se: T.String({ description: 'signed: expiry (one hour after PrepareUpload)' }),
      sig: T.String({ description: 'signed: the signature; a credential, never logged' }),
      comp: T.Optional(
        T.Union([T.Literal('block'), T.Literal('blocklist')], { description: 'Azure block upload' }),
      ),
      blockid: T.Optional(T.String({ description: 'comp=block: base64 block id' })),
    },
    { additionalProperties: false, description: 'send the sasUri exactly as PrepareUpload returned it' },
  ),
  bodies: {
    'multipart/form-data': T.Object(
      { file: T.String({ format: 'binary' }) },
      { description: 'the spec: a part named file' },
    ),
    'application/octet-stream': T.String({
      format: 'binary',
      description: 'x-ms-blob-type: BlockBlob, or a block',
    }),
    'application/xml': T.String({ description: 'comp=blocklist: the XML block list' }),
  },
} satisfies DocumentedRequest;

/** Registers the upload route. Bodies are not parsed by Fastify here: the handlers stream them. */
export async function storageRoutes(app: FastifyInstance, options: StorageRoutesOptions): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  const log = options.logger.child({ route: 'storage' });
  app.put(
    `${STORAGE_UPLOAD_PREFIX}:fileId`,
    { logLevel: 'silent', schema: operation('UploadFile', storageSchema, storageRequest) },
    async (request, reply) => {
      const { fileId } = request.params as { fileId: string };
      try {
        return await upload(request, reply, options.files, fileId.toLowerCase());
      } catch (error) {
        if (!(await drainBody(request.raw, DRAIN_LIMIT))) {
          reply.header('connection', 'close');
          lingerOnClose(request.raw);
        }
        return sendStorageError(reply, error, log, fileId);
      }
    },
  );
}

async function upload(request: FastifyRequest, reply: FastifyReply, files: FileStore, fileId: string) {
  const query = request.query as Record<string, unknown>;
  const check = files.checkSignature(fileId, query);
  if (check !== 'valid') {
    const message = check === 'expired' ? 'the upload URL has expired' : 'the signature does not match';
    return sendXmlError(reply, 403, 'AuthenticationFailed', message);
  }
  const file = await files.get(fileId);
  if (!file) return sendXmlError(reply, 404, 'BlobNotFound', 'no such upload');
  if (query.comp === 'block') {
    if (typeof query.blockid !== 'string')
      throw new ValidationError('blockid', 'is required with comp=block');
    await files.writeBlock(file, query.blockid, request.raw);
  } else if (query.comp === 'blocklist') {
    const xml = await readText(request.raw, MAX_BLOCK_LIST_BYTES, 'blocklist');
    await files.commitBlockList(file, parseBlockList(xml));
  } else if (query.comp !== undefined) {
    throw new ValidationError('comp', 'must be block or blocklist');
  } else {
    await putBlob(request, files, file);
  }
  return sendCreated(reply, file);
}

/** A whole-blob upload: multipart with a `file` part, or the raw body. */
async function putBlob(request: FastifyRequest, files: FileStore, file: StoredFile): Promise<void> {
  const blobType = request.headers['x-ms-blob-type'];
  if (typeof blobType !== 'string' || blobType.toLowerCase() !== 'blockblob') {
    throw new ValidationError('x-ms-blob-type', 'header must be BlockBlob');
  }
  const contentType = request.headers['content-type'] ?? '';
  if (contentType.toLowerCase().startsWith('multipart/form-data')) {
    await putMultipart(request, files, file);
  } else {
    await files.writeDocument(file, request.raw);
  }
}

/** Streams the part named `file` of a multipart body into the store; other parts are skipped. */
function putMultipart(request: FastifyRequest, files: FileStore, file: StoredFile): Promise<void> {
  return new Promise((resolve, reject) => {
    let written: Promise<void> | undefined;
    let parser: busboy.Busboy;
    try {
      // Large buffers: with the defaults (16 KiB on Node 20) a big document crosses in tiny pieces.
      parser = busboy({
        headers: request.headers,
        limits: { fields: 20 },
        highWaterMark: FILE_CHUNK,
        fileHwm: FILE_CHUNK,
      });
    } catch (error) {
      reject(new ValidationError('content-type', multipartHeaderRule(error)));
      return;
    }
    let part: Readable | undefined;
    parser.on('file', (name, stream) => {
      if (name !== 'file' || written) {
        stream.resume();
        return;
      }
      part = stream;
      written = files.writeDocument(file, stream);
      // A refused upload (already uploaded, 409) never reads its part: read it to the end, or the
      // parser waits on it forever and the request is never answered.
      written.catch(() => stream.resume());
    });
    parser.on('error', (error) => {
      request.raw.unpipe(parser);
      reject(new ValidationError('file', `bad multipart body: ${errorMessage(error)}`));
    });
    parser.on('close', () => {
      if (!written) reject(new ValidationError('file', 'the multipart body needs a part named file'));
      else written.then(resolve, reject);
    });
    request.raw.on('error', reject);
    // A connection cut before the whole body arrived ends neither the parser nor the part it was
    // streaming (a pipe does not pass an abort on): fail both, so the store drops its temporary file
    // and the URL takes the upload again.
    request.raw.on('close', () => {
      if (request.raw.complete) return;
      const cut = new ValidationError('file', 'the upload connection closed before the body was complete');
      part?.destroy(cut);
      request.raw.unpipe(parser);
      parser.destroy(cut);
      reject(cut);
    });
    request.raw.pipe(parser);
  });
}

/** The rule a multipart Content-Type broke (busboy names the missing part). */
function multipartHeaderRule(error: unknown): string {
  const message = errorMessage(error);
  if (/boundary/i.test(message))
    return 'multipart/form-data needs a boundary parameter (multipart/form-data; boundary=...)';
  return `is not a usable multipart/form-data type: ${message}`;
}

function sendCreated(reply: FastifyReply, file: StoredFile) {
  return reply
    .code(201)
    .header('etag', `"0x${file.sha256.slice(0, 16).toUpperCase() || '0'}"`)
    .header('x-ms-request-server-encrypted', 'false')
    .header('x-ms-version', '2024-11-04')
    .send();
}

function sendStorageError(reply: FastifyReply, error: unknown, log: Logger, fileId: string) {
  if (error instanceof ValidationError) return sendXmlError(reply, 400, 'InvalidInput', error.message);
  if (error instanceof TooLargeError) return sendXmlError(reply, 413, 'RequestBodyTooLarge', error.message);
  if (error instanceof BlockCountError)
    return sendXmlError(reply, 409, 'BlockCountExceedsLimit', error.message);
  if (hasErrorCode(error, 'conflict')) {
    return sendXmlError(reply, 409, 'BlobImmutable', error.message);
  }
  log.error({ err: error, file: fileId }, 'upload failed');
  return sendXmlError(reply, 500, 'InternalError', 'the upload could not be stored');
}

function xmlEscape(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function sendXmlError(reply: FastifyReply, status: number, code: string, message: string) {
  const body = `<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message></Error>`;
  return reply
    .code(status)
    .header('content-type', 'application/xml')
    .header('x-ms-error-code', code)
    .send(body);
}
