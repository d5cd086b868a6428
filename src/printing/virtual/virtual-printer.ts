/**
 * The built-in virtual printer: a real IPP/1.1-2.0 server on node:http that ipptool and the
 * IppBackend accept. Get-Printer-Attributes, Print-Job, Validate-Job, Get-Job-Attributes,
 * Get-Jobs and Cancel-Job. The request header is decoded incrementally; the document streams
 * straight to `<outputDir>/<job-id>-<job-name>.<ext>` while PDF pages are counted. The owner
 * calls start() and stop(); stop() closes the server and its connections.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type Clock, systemClock } from '../../lib/clock.js';
import type { Logger } from '../../log/logger.js';
import type { PrinterAttributes } from '../printer-backend.js';
import { attributesToRecord } from '../ipp/ipp-attributes.js';
import { decodeMessage, type IppMessage, IppIncompleteError } from '../ipp/ipp-codec.js';
import { JOB_STATE, OPERATION, STATUS } from '../ipp/ipp-constants.js';
import { PdfPageCounter } from './pdf-page-counter.js';
import { printedFileName, TextPageCounter, type VirtualJob, VirtualJobTable } from './virtual-jobs.js';
import { type IppReply, type JobDraft, VirtualOperations } from './virtual-operations.js';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../../lib/private-paths.js';

/** One document the virtual printer has written. */
export interface PrintedDocument {
  path: string;
  /** PDF page count; undefined for other formats and for PDFs whose page objects could not be found. */
  pages: number | undefined;
  jobId: number;
  jobName: string;
  documentFormat: string;
  bytes: number;
  /** The job template attributes as submitted (copies, sides, media-col, ...). */
  attributes: PrinterAttributes;
}

/** Options of a VirtualPrinter. */
export interface VirtualPrinterOptions {
  name: string;
  outputDir: string;
  logger: Logger;
  /** Listen address (default 127.0.0.1). */
  host?: string;
  /** Listen port (default 0: an ephemeral port). */
  port?: number;
  clock?: Clock;
}

/** Largest accepted IPP header (attributes before the document). */
const MAX_HEADER_BYTES = 1024 * 1024;

/** An in-process IPP printer; emits 'printed' (PrintedDocument) after each document. */
export class VirtualPrinter extends EventEmitter {
  private server: Server | undefined;
  private readonly jobs = new VirtualJobTable();
  private readonly documents: PrintedDocument[] = [];
  private readonly uuid = randomUUID();
  private readonly logger: Logger;
  private readonly clock: Clock;
  private startedAt = 0;
  private operations: VirtualOperations | undefined;

  constructor(private readonly options: VirtualPrinterOptions) {
    super();
    this.logger = options.logger.child({ printer: `virtual://${options.name}` });
    this.clock = options.clock ?? systemClock;
  }

  /** Listens; resolves with the printer's ipp:// URI. */
  async start(): Promise<{ uri: string }> {
    ensurePrivateDir(this.options.outputDir);
    this.startedAt = this.clock.now();
    this.operations = new VirtualOperations({
      name: this.options.name,
      uuid: this.uuid,
      jobs: this.jobs,
      upTime: () => this.upTime(),
    });
    const server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        this.logger.error({ err: error }, 'virtual printer request failed');
        if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      });
    });
    this.server = server;
    const host = this.options.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port ?? 0, host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const uri = `ipp://${host.includes(':') ? `[${host}]` : host}:${port}/ipp/print`;
    this.logger.info({ uri, outputDir: this.options.outputDir }, 'virtual printer listening');
    return { uri };
  }

  /** Stops listening and closes open connections. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  /** The documents written so far, oldest first (a copy). */
  printed(): PrintedDocument[] {
    return [...this.documents];
  }

  private upTime(): number {
    return Math.max(1, Math.floor((this.clock.now() - this.startedAt) / 1000));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') {
      res.writeHead(req.method === 'GET' ? 200 : 405, { 'content-type': 'text/plain' });
      res.end(`PrintRelay virtual printer ${this.options.name}: send IPP requests with POST\n`);
      return;
    }
    if (!(req.headers['content-type'] ?? '').toLowerCase().startsWith('application/ipp')) {
      res.writeHead(415).end();
      return;
    }
    const header = await readIppHeader(req);
    if ('error' in header) {
      this.logger.warn({ problem: header.error }, 'bad IPP request');
      res.writeHead(400, { 'content-type': 'text/plain' }).end(`${header.error}\n`);
      return;
    }
    const ops = this.operations!;
    const printerUri = `ipp://${req.headers.host ?? '127.0.0.1'}/ipp/print`;
    const request = header.message;
    let reply: IppReply | undefined = ops.checkRequest(request);
    if (reply) {
      this.logger.debug({ problem: reply.message }, 'IPP request refused');
    } else if (request.code === OPERATION.PRINT_JOB) {
      const check = ops.checkJob(request);
      reply =
        'reply' in check
          ? check.reply
          : await this.printJob(req, header.rest, request, check.job, printerUri);
    } else {
      reply = ops.dispatch(request, printerUri);
    }
    req.resume();
    const body = ops.encodeReply(request, reply);
    res.writeHead(200, { 'content-type': 'application/ipp', 'content-length': body.length });
    res.end(body);
  }

  private async printJob(
    req: IncomingMessage,
    first: Buffer,
    request: IppMessage,
    draft: JobDraft,
    printerUri: string,
  ): Promise<IppReply> {
    const id = this.jobs.allocateId();
    const path = join(this.options.outputDir, printedFileName(id, draft));
    const job: VirtualJob = {
      ...draft,
      id,
      path,
      state: JOB_STATE.pending,
      reasons: ['job-incoming'],
      createdAt: this.upTime(),
      bytes: 0,
    };
    this.jobs.add(job);
    const log = this.logger.child({ job: id });
    try {
      await this.receive(req, first, job);
    } catch (error) {
      job.state = JOB_STATE.aborted;
      job.reasons = ['aborted-by-system'];
      job.completedAt = this.upTime();
      await rm(path, { force: true });
      log.warn({ err: error }, 'document transfer failed; job aborted');
      return { status: STATUS.INTERNAL_ERROR, message: 'document transfer failed' };
    }
    if (job.state !== JOB_STATE.cancelled) {
      job.state = JOB_STATE.completed;
      job.reasons = ['job-completed-successfully'];
    }
    job.completedAt = this.upTime();
    this.record(job);
    log.info({ path, pages: job.pages, bytes: job.bytes }, 'document printed');
    return this.operations!.jobCreatedReply(job, printerUri, request);
  }

  private async receive(req: IncomingMessage, first: Buffer, job: VirtualJob): Promise<void> {
    const counter = job.format === 'application/pdf' ? new PdfPageCounter() : undefined;
    const text = job.format === 'text/plain' ? new TextPageCounter() : undefined;
    const tap = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        if (job.state === JOB_STATE.pending) {
          job.state = JOB_STATE.processing;
          job.reasons = ['job-printing'];
        }
        job.bytes += chunk.length;
        counter?.push(chunk);
        text?.push(chunk);
        done(null, chunk);
      },
    });
    job.processingAt = this.upTime();
    tap.write(first);
    await pipeline(req, tap, createWriteStream(job.path, { mode: PRIVATE_FILE_MODE }));
    if (counter) job.pages = counter.finish();
    if (text) job.pages = text.finish();
  }

  private record(job: VirtualJob): void {
    const doc: PrintedDocument = {
      path: job.path,
      pages: job.pages || undefined,
      jobId: job.id,
      jobName: job.name,
      documentFormat: job.format,
      bytes: job.bytes,
      attributes: attributesToRecord(job.template),
    };
    this.documents.push(doc);
    this.emit('printed', doc);
  }
}

/**
 * Reads the request until its IPP header decodes; pauses the request there. Returns the message
 * and the document bytes already read, or an error text for an undecodable or oversized header.
 */
function readIppHeader(
  req: IncomingMessage,
): Promise<{ message: IppMessage; rest: Buffer } | { error: string }> {
  return new Promise((resolve) => {
    let buffered = Buffer.alloc(0);
    const finish = (result: { message: IppMessage; rest: Buffer } | { error: string }) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.pause();
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      try {
        const decoded = decodeMessage(buffered);
        finish({ message: decoded, rest: buffered.subarray(decoded.bodyOffset) });
      } catch (error) {
        if (!(error instanceof IppIncompleteError)) finish({ error: (error as Error).message });
        else if (buffered.length > MAX_HEADER_BYTES) finish({ error: 'IPP header larger than 1 MiB' });
      }
    };
    const onEnd = () => finish({ error: 'request ended inside the IPP header' });
    req.on('data', onData);
    req.on('end', onEnd);
  });
}
