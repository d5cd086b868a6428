/**
 * Sends stored files (job documents) with Range support (file-range.ts), the body written by
 * file-body-writer.ts from buffers of one BufferPool shared by every download: two per
 * download while it runs, at most `maxIdle` kept between downloads. The reply is taken over from
 * Fastify once the file is open (a file that cannot be opened still gets Fastify's error
 * answer), so Fastify's onSend hooks do not run for the body: the writer applies the fault
 * shaping set on the request, the headers set on the reply so far (CORS, the fault header) go
 * out with it, and the request log line comes from Fastify's usual one when the response
 * finishes, or from here when it was cut, aborted by its client or failed. Every body holds a
 * slot of the DownloadGate (download-gate.ts) while it is written: beyond the caps, overall and
 * per organization, a download waits in line or is refused with 503 and Retry-After; the slot
 * is given back when the body ended, its client hung up included.
 */
import { open } from 'node:fs/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { FILE_CHUNK } from '../../lib/file-sink.js';
import { BufferPool } from './buffer-pool.js';
import { type DownloadLimits, DownloadGate } from './download-gate.js';
import { writeFileBody } from './file-body-writer.js';
import { rangeAnswer, type ServedFile } from './file-range.js';
import { pathOnly } from './request-log.js';

/** Idle buffers kept between downloads by default (8 MiB of 1 MiB buffers). */
export const DEFAULT_IDLE_BUFFERS = 8;

/** The file sender of one emulator; nothing to start or stop. */
export class FileSender {
  /** The buffers bodies are written from (read by tests and the benchmarks). */
  readonly pool: BufferPool;
  /** The slots bodies are written in (read by tests). */
  readonly gate: DownloadGate;
  private running = 0;
  private readonly settleWaiters: (() => void)[] = [];

  constructor(options: { chunkBytes?: number; idleBuffers?: number; limits?: Partial<DownloadLimits> } = {}) {
    this.pool = new BufferPool(options.chunkBytes ?? FILE_CHUNK, options.idleBuffers ?? DEFAULT_IDLE_BUFFERS);
    this.gate = new DownloadGate(options.limits);
  }

  /**
   * Answers a GET (or HEAD) of `file`, a document of the organization `tenant`: 200, 206 or 416
   * as rangeAnswer decides. Resolves when the answer ended (or its client hung up while it
   * waited for a slot); rejects only before anything was sent (no slot: a 503 HttpError; the
   * file cannot be opened).
   */
  async send(request: FastifyRequest, reply: FastifyReply, file: ServedFile, tenant: string): Promise<void> {
    const ifRange = request.headers['if-range'];
    const answer = rangeAnswer(
      { range: request.headers.range, ifRange: Array.isArray(ifRange) ? ifRange.join(', ') : ifRange },
      file,
    );
    if (answer.range === undefined) {
      reply.status(answer.status).headers(answer.headers).send();
      return;
    }
    if (request.method === 'HEAD') {
      // The headers of the GET, Content-Length included, and no body.
      takeOver(reply, answer.status, answer.headers).end();
      return;
    }
    const release = await this.slot(reply, tenant);
    if (!release) return;
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(file.path, 'r');
    } catch (error) {
      release();
      throw error;
    }
    this.running += 1;
    try {
      const res = takeOver(reply, answer.status, answer.headers);
      const shaping = request.responseShaping;
      request.responseShaping = null;
      const outcome = await writeFileBody(res, handle, answer.range, this.pool, shaping);
      if (outcome.kind === 'complete') return;
      const line = {
        method: request.method,
        path: pathOnly(request.url),
        status: answer.status,
        bytes: outcome.bytes,
      };
      if (outcome.kind === 'failed')
        request.log.error({ ...line, err: outcome.error }, 'document download failed');
      else if (outcome.kind === 'cut') request.log.info(line, 'document download cut by a fault rule');
      else request.log.info(line, 'document download ended early by its client');
    } finally {
      await handle.close();
      release();
      this.running -= 1;
      if (this.running === 0) for (const wake of this.settleWaiters.splice(0)) wake();
    }
  }

  /** A slot of the gate; undefined when the client hung up while waiting (nothing to answer). */
  private async slot(reply: FastifyReply, tenant: string): Promise<(() => void) | undefined> {
    const gone = new AbortController();
    const onClose = () => gone.abort();
    if (reply.raw.destroyed) gone.abort();
    reply.raw.once('close', onClose);
    try {
      return await this.gate.acquire(tenant, gone.signal);
    } catch (error) {
      if (gone.signal.aborted) {
        reply.hijack();
        return undefined;
      }
      throw error;
    } finally {
      reply.raw.off('close', onClose);
    }
  }

  /** Bodies being written now. */
  get active(): number {
    return this.running;
  }

  /** Resolves once no body is being written: every file closed, every buffer back in the pool. */
  settled(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.settleWaiters.push(resolve));
  }
}

/** Takes the response over from Fastify with the reply's headers so far and `headers`. */
function takeOver(reply: FastifyReply, status: number, headers: Record<string, string>): FastifyReply['raw'] {
  const own = reply.getHeaders();
  reply.hijack();
  const res = reply.raw;
  for (const [name, value] of Object.entries(own)) if (value !== undefined) res.setHeader(name, value);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.statusCode = status;
  return res;
}
