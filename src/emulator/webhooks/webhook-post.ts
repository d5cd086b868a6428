/**
 * One webhook POST over undici's dispatch interface, with an abort handle that costs no
 * AbortSignal: the sender's deadline sweep calls abort() on the POSTs past their deadline. The
 * answer's body is discarded, or kept up to `bodyLimit` bytes for a transcript. An abort before
 * the request has its connection takes effect as soon as it gets one (the connect timeout
 * bounds the wait for it). Nothing to clean up: undici closes the request either way.
 */
import type { Dispatcher } from 'undici';
import type { IncomingHttpHeaders } from 'undici/types/header.js';

/** The answer to a POST. */
export interface PostAnswer {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** The body's first `bodyLimit` bytes (empty unless asked for). */
  body: string;
}

/** The error a POST aborted at its deadline fails with. */
export class PostDeadlineError extends Error {
  readonly code = 'E_WEBHOOK_DEADLINE';
  constructor() {
    super('no answer within the deadline');
  }
}

/** A POST under way: its outcome, and abort() for the deadline. */
export class PendingPost implements Dispatcher.DispatchHandler {
  readonly answer: Promise<PostAnswer>;
  private controller: Dispatcher.DispatchController | undefined;
  private abortWanted = false;
  private statusCode = 0;
  private headers: IncomingHttpHeaders = {};
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private resolve!: (answer: PostAnswer) => void;
  private reject!: (error: Error) => void;

  constructor(private readonly bodyLimit: number) {
    this.answer = new Promise<PostAnswer>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  /** Aborts the POST (its answer rejects with PostDeadlineError). */
  abort(): void {
    if (this.controller) this.controller.abort(new PostDeadlineError());
    else this.abortWanted = true;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.abortWanted) controller.abort(new PostDeadlineError());
  }

  onResponseStart(_c: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    this.statusCode = statusCode;
    this.headers = headers;
  }

  onResponseData(_c: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.size < this.bodyLimit) this.chunks.push(chunk);
    this.size += chunk.length;
  }

  onResponseEnd(): void {
    const body =
      this.chunks.length === 0 ? '' : Buffer.concat(this.chunks).subarray(0, this.bodyLimit).toString('utf8');
    this.resolve({ statusCode: this.statusCode, headers: this.headers, body });
  }

  onResponseError(_c: Dispatcher.DispatchController, error: Error): void {
    this.reject(error);
  }
}

/** Starts a POST of `body` through `dispatcher`; keeps up to `bodyLimit` bytes of the answer's body. */
export function startPost(
  dispatcher: Dispatcher,
  request: { origin: string; path: string; headers: Readonly<Record<string, string>>; body: string },
  bodyLimit: number,
): PendingPost {
  const post = new PendingPost(bodyLimit);
  dispatcher.dispatch({ ...request, method: 'POST' }, post);
  return post;
}
