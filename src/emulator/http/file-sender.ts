/**
 * Sends stored files (job documents) with Range support (file-range.ts), the body written by
 * file-body-writer.ts from buffers of one BufferPool shared by every download: two per
 * download while it runs, at most `maxIdle` kept between downloads. The reply is taken over from
 * Fastify once the file is open (a file that cannot be opened still gets Fastify's error
 * answer), so Fastify's onSend hooks do not run for the body: the writer applies the fault
 * shaping set on the request, the headers set on the reply so far (CORS, the fault header) go
 * out with it, and the request log line comes from Fastify's usual one when the response
 * finishes, or from here when it was cut, aborted by its client or failed.
 */
import { open } from 'node:fs/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { FILE_CHUNK } from '../../lib/file-sink.js';
import { BufferPool } from './buffer-pool.js';
import { writeFileBody } from './file-body-writer.js';
import { rangeAnswer, type ServedFile } from './file-range.js';
import { pathOnly } from './request-log.js';

/** Idle buffers kept between downloads by default (8 MiB of 1 MiB buffers). */
export const DEFAULT_IDLE_BUFFERS = 8;

/** The file sender of one emulator; nothing to start or stop. */
export class FileSender {
  /** The buffers bodies are written from (read by tests and the benchmarks). */
  readonly pool: BufferPool;
  private running = 0;
  private readonly settleWaiters: (() => void)[] = [];

  constructor(options: { chunkBytes?: number; idleBuffers?: number } = {}) {
    this.pool = new BufferPool(options.chunkBytes ?? FILE_CHUNK, options.idleBuffers ?? DEFAULT_IDLE_BUFFERS);
  }

  /**
   * Answers a GET (or HEAD) of `file`: 200, 206 or 416 as rangeAnswer decides. Resolves when the
   * answer ended; rejects only before anything was sent (the file cannot be opened).
   */
  async send(request: FastifyRequest, reply: FastifyReply, file: ServedFile): Promise<void> {
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
    const handle = await open(file.path, 'r');
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
      this.running -= 1;
      if (this.running === 0) for (const wake of this.settleWaiters.splice(0)) wake();
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
