/**
 * The print submission API (/sfapi/) as an app uses it: configuration, printers, properties,
 * PrepareUpload, the storage upload (multipart streamed from disk, with progress callbacks),
 * Print (repeating with the returned fileid on HTTP 412) and Status. close() releases pools.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { basename } from 'node:path';
import { PassThrough, Readable, Transform } from 'node:stream';
import { sleep } from '../lib/abort.js';
import { PermanentError } from '../lib/errors.js';
import { FILE_CHUNK } from '../lib/file-sink.js';
import type { PrinterProperties } from '../protocol/printer-properties.js';
import type {
  PrepareUploadResponse,
  SfapiConfiguration,
  SfapiJobStatus,
  SfapiPrinter,
  SfapiPrintRequest,
} from '../protocol/sfapi-configuration.js';
import type { HttpClient } from './http-base.js';

export type {
  PrepareUploadResponse,
  SfapiConfiguration,
  SfapiJobStatus,
  SfapiPrinter,
  SfapiPrintRequest,
} from '../protocol/sfapi-configuration.js';

/** Bytes sent so far and the total. */
export type UploadProgress = (sent: number, total: number) => void;

/**
 * Client of the print submission API; the HttpClient (owned and closed by the caller) carries
 * the app's bearer tokens.
 */
export class SfapiClient {
  constructor(
    private readonly http: HttpClient,
    private readonly options: { printRetryDelayMs?: number; maxPrintRetries?: number } = {},
  ) {}

  /** GET /sfapi/GetConfiguration/. */
  getConfiguration(signal?: AbortSignal): Promise<SfapiConfiguration> {
    return this.http.json({ method: 'GET', path: '/sfapi/GetConfiguration/', signal });
  }

  /** GET /sfapi/GetPrinter/: the printers the token may use. */
  getPrinters(signal?: AbortSignal): Promise<SfapiPrinter[]> {
    return this.http.json({ method: 'GET', path: '/sfapi/GetPrinter/', signal });
  }

  /** Properties of one printer (by id or name) or of all. */
  getPrinterProperties(which: { id?: string; printer?: string } = {}, signal?: AbortSignal) {
    return this.http.json<PrinterProperties[]>({
      method: 'GET',
      path: '/sfapi/GetPrinterProperties/',
      query: { id: which.id, printer: which.printer },
      signal,
    });
  }

  /** GET /sfapi/PrepareUpload/. */
  prepareUpload(signal?: AbortSignal): Promise<PrepareUploadResponse> {
    return this.http.json({ method: 'GET', path: '/sfapi/PrepareUpload/', signal });
  }

  /** Uploads a file to the sasUri as a multipart form (part `file`), streamed from disk. */
  async upload(
    sasUri: string,
    filePath: string,
    onProgress?: UploadProgress,
    signal?: AbortSignal,
  ): Promise<void> {
    const boundary = `----printrelay${randomBytes(12).toString('hex')}`;
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${basename(filePath).replace(/"/g, '')}"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const total = head.length + statSync(filePath).size + tail.length;
    const res = await this.http.request({
      method: 'PUT',
      path: sasUri,
      auth: false,
      headers: {
        'x-ms-blob-type': 'BlockBlob',
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(total),
      },
      body: progressStream(multipartBody(head, filePath, tail), total, onProgress),
      signal,
    });
    await res.body.dump();
  }

  /** Submits a print job; on 412 repeats with the returned fileid until a jobid arrives. */
  async print(request: SfapiPrintRequest, signal?: AbortSignal): Promise<{ jobid: string }> {
    let body: SfapiPrintRequest = request;
    const limit = this.options.maxPrintRetries ?? 60;
    for (let attempt = 0; attempt <= limit; attempt++) {
      const res = await this.http.request({
        method: 'POST',
        path: '/sfapi/Print/',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
        signal,
        passStatuses: [412],
      });
      const answer = JSON.parse(await res.body.text()) as { jobid?: string; fileid?: string };
      if (res.status !== 412 && answer.jobid) return { jobid: answer.jobid };
      if (!answer.fileid)
        throw new PermanentError('invalid_print_response', `Print: HTTP ${res.status} without jobid`);
      const { fileurl: _url, ...rest } = body;
      body = { ...rest, fileid: answer.fileid };
      await sleep(this.options.printRetryDelayMs ?? 1000, signal);
    }
    throw new PermanentError('print_pending', `Print: file still being fetched after ${limit} retries`);
  }

  /** Status of a job (jobstatus 0 done, 129/1246 keep polling, others an error). */
  status(jobId: string, signal?: AbortSignal): Promise<SfapiJobStatus> {
    return this.http.json<SfapiJobStatus>({
      method: 'GET',
      path: '/sfapi/Status/',
      query: { id: jobId },
      signal,
    });
  }
}

function multipartBody(head: Buffer, filePath: string, tail: Buffer): Readable {
  return Readable.from(
    (async function* () {
      yield head;
      for await (const chunk of createReadStream(filePath, { highWaterMark: FILE_CHUNK }))
        yield chunk as Buffer;
      yield tail;
    })(),
  );
}

function progressStream(source: Readable, total: number, onProgress?: UploadProgress): Readable {
  if (!onProgress) return source;
  let sent = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      sent += chunk.length;
      onProgress(sent, total);
      callback(null, chunk);
    },
  });
  const out = new PassThrough();
  source.on('error', (error) => out.destroy(error));
  source.pipe(counter).pipe(out);
  return out;
}
