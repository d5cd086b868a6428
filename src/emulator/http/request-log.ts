/**
 * Request log lines without query strings: signed upload URLs carry their credential in the
 * query, and tokens may arrive there too, so Fastify's per-request lines are replaced by ones that
 * name only the method and the path (plus status and time). Used by app.ts as `logController`.
 */
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

/** The request's path without its query string. */
export function pathOnly(url: string): string {
  const end = url.search(/[?#]/);
  return end < 0 ? url : url.slice(0, end);
}

/** Fastify's log controller with path-only request lines. */
export class PathOnlyLogController extends LogController {
  override incomingRequest(request: FastifyRequest, _reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    request.log.debug({ method: request.method, path: pathOnly(request.url) }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (this.isLogDisabled(request)) return;
    const line = {
      method: request.method,
      path: pathOnly(request.url),
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime),
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }

  override routeNotFound(request: FastifyRequest, _reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    request.log.info({ method: request.method, path: pathOnly(request.url) }, 'route not found');
  }

  override defaultErrorLog(error: Error, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const line = {
      method: request.method,
      path: pathOnly(request.url),
      status: reply.statusCode,
      err: error,
    };
    if (reply.statusCode >= 500) reply.log.error(line, error.message);
    else reply.log.info(line, error.message);
  }

  override writeHeadError(error: Error, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    reply.log.warn({ method: request.method, path: pathOnly(request.url), err: error }, error.message);
  }
}
