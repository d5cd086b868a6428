/**
 * The emulator's single error handler and 404 handler: every route error goes through
 * `toHttpError` (http/http-errors.ts). Server errors are logged with the request's logger;
 * client errors at debug level.
 */
import type { FastifyInstance } from 'fastify';
import { toHttpError } from './http-errors.js';

/** Installs the error and not-found handlers on the root instance. */
export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const mapped = toHttpError(error);
    if (mapped.status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.debug({ status: mapped.status, error: mapped.body.error }, 'request rejected');
    return reply.status(mapped.status).headers(mapped.headers).send(mapped.body);
  });
  app.setNotFoundHandler((request, reply) =>
    reply
      .status(404)
      .send({ error: 'not_found', message: `no route ${request.method} ${request.url.split('?')[0]}` }),
  );
}
