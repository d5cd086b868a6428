/**
 * A /TPFM/ response read through undici's dispatch handler instead of its request API: the status
 * and headers once they arrive, the body as an async iterable of the chunks as they came, and the
 * trailers at the end. A station reads one such response per released job (PrintJob with its
 * progress stream), and the request API's generic parts (a Readable body with an async iterator
 * over it, an async resource per request) cost more than the few short chunks it carries
 * (docs/performance.md, Round 6). Backpressure: the connection is paused while more than
 * HIGH_WATER bytes wait unread. Whoever receives a response reads its body to the end or calls
 * `destroy()`, which aborts the request; aborting `signal` does the same.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';

/** Unread bytes at which the connection is paused until the reader catches up. */
const HIGH_WATER = 64 * 1024;

/** A response as TpfmClient reads it (see the file comment). */
export interface StreamedResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** Filled once the body ended; empty before. */
  trailers: IncomingHttpHeaders;
  body: ResponseChunks;
}

/** The body's chunks in order; iterate once. */
export class ResponseChunks implements AsyncIterable<Buffer> {
  private readonly queue: Buffer[] = [];
  private queued = 0;
  private ended = false;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly controller: Dispatcher.DispatchController) {}

  /** A chunk arrived (the handler's side). */
  push(chunk: Buffer): void {
    this.queue.push(chunk);
    this.queued += chunk.length;
    if (this.queued > HIGH_WATER) this.controller.pause();
    this.notify();
  }

  /** The body ended (`error`: it broke off); the first end counts. */
  end(error?: Error): void {
    if (this.ended) return;
    this.ended = true;
    this.failure = error;
    this.notify();
  }

  /** Stops reading: the request is aborted; the iteration ends, with `error` if given. */
  destroy(error?: Error): void {
    if (this.ended) return;
    this.end(error);
    this.queue.length = 0;
    this.controller.abort(error ?? new Error('response body destroyed'));
  }

  /** Reads the body to its end and drops it (keeps a kept-alive connection usable). */
  async dump(): Promise<void> {
    for await (const _ of this) void _;
  }

  /** The body as UTF-8 text. */
  async text(): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of this) chunks.push(chunk);
    return Buffer.concat(chunks).toString('utf8');
  }

  /** Yields the chunks; leaving the loop early destroys the body, as with a node stream. */
  async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
    try {
      for (;;) {
        const chunk = this.queue.shift();
        if (chunk) {
          this.queued -= chunk.length;
          if (this.controller.paused && this.queued <= HIGH_WATER) this.controller.resume();
          yield chunk;
          continue;
        }
        if (this.failure) throw this.failure;
        if (this.ended) return;
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
      }
    } finally {
      this.destroy();
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

/**
 * Dispatches `options` on `dispatcher`; resolves with the response once its headers arrived,
 * rejects when the request failed before them (undici's errors as they are).
 */
export function dispatchStreamed(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  signal?: AbortSignal,
): Promise<StreamedResponse> {
  return new Promise((resolve, reject) => {
    let response: StreamedResponse | undefined;
    let controller: Dispatcher.DispatchController | undefined;
    const onAbort = () => controller?.abort(signal?.reason ?? new Error('aborted'));
    const settle = (error?: Error) => {
      signal?.removeEventListener('abort', onAbort);
      if (response) response.body.end(error);
      else reject(error ?? new Error('response ended before its headers'));
    };
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(started) {
        controller = started;
        if (signal?.aborted) onAbort();
      },
      onResponseStart(started, statusCode, headers) {
        if (statusCode < 200) return;
        response = { statusCode, headers, trailers: {}, body: new ResponseChunks(started) };
        resolve(response);
      },
      onResponseData(_controller, chunk) {
        response?.body.push(chunk);
      },
      onResponseEnd(_controller, trailers) {
        if (response) response.trailers = trailers;
        settle();
      },
      onResponseError(_controller, error) {
        settle(error);
      },
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    dispatcher.dispatch(options, handler);
  });
}
