/**
 * The webhook interface ({api_url}, no version segment):
 *   POST   /webhooks/endpoints                           201 endpoint
 *   GET    /webhooks/endpoints                           paginated endpoints (limit, offset)
 *   GET    /webhooks/endpoints/<id>                      endpoint
 *   PATCH  /webhooks/endpoints/<id>                      merge patch (application/merge-patch+json)
 *   DELETE /webhooks/endpoints/<id>                      204
 *   PUT    /webhooks/endpoints/test                      a real POST of a sample event, as a transcript
 *   GET    /webhooks/endpoints/<id>/events               failed events (order, limit, offset)
 *   GET    /webhooks/endpoints/<id>/events/<event_id>    failed event
 *   DELETE /webhooks/endpoints/<id>/events/<event_id>    204
 *   DELETE /webhooks/endpoints/<id>/events               204, every failed event
 *   PUT    /webhooks/endpoints/<id>/events/<event_id>/retry   synchronous retry result
 *   PUT    /webhooks/endpoints/<id>/events/retry         {created}; 409 while one runs
 *   GET    /webhooks/endpoints/<id>/events/retry         {created}; 404 when none runs
 *   DELETE /webhooks/endpoints/<id>/events/retry         204; 404 when none runs
 *   GET    /webhooks/settings, PATCH /webhooks/settings  data protection settings
 * Endpoints, failed events and data protection settings are organization configuration: every
 * route needs an organization admin (the emulator's reading of the spec; an ordinary user or a
 * client_credentials token gets 403). GET needs `webhooks.readonly` or `webhooks`; every other
 * method `webhooks`. Ids of another organization: 404. Route schemas (TypeBox) validate input and describe every answer.
 */
import type { Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { RoutePlugin } from '../http/route-plugin.js';
import { requireAnyScope, requireScopes } from '../accounts/bearer-auth.js';
import type { BaseUrlPolicy } from '../http/base-url.js';
import { forbidden } from '../http/http-errors.js';
import { envelope } from '../http/pagination.js';
import { schemaErrorsToValidation } from '../http/schema-errors.js';
import { parseEventOrder } from './webhook-endpoint-rules.js';
import type { WebhookService } from './webhook-service.js';
import * as S from './webhook-schemas.js';

type PageQuery = Static<typeof S.PageQuery>;
type EventQuery = Static<typeof S.EventListQuery>;
type IdParams = { Params: Static<typeof S.EndpointParams> };
type EventParams = { Params: Static<typeof S.EventParams> };

/** Refuses a caller without the organization's admin role (runs after the scope check). */
const requireOrganizationAdmin: preHandlerAsyncHookHandler = async (request) => {
  if (!request.auth.roles.includes('admin'))
    throw forbidden("the organization's webhooks and their settings need an organization admin");
};

const read = { preHandler: [requireAnyScope('webhooks', 'webhooks.readonly'), requireOrganizationAdmin] };
const write = { preHandler: [requireScopes('webhooks'), requireOrganizationAdmin] };

/** Content types of the PATCH bodies: JSON Merge Patch as the spec says, plain JSON too. */
const MERGE_PATCH = ['application/merge-patch+json', 'application/json'];

/** What the webhook routes use. */
export interface WebhookRouteContext {
  webhooks: WebhookService;
  baseUrl: BaseUrlPolicy;
}

/** Registers the webhook routes. */
export const webhookRoutes: RoutePlugin<WebhookRouteContext> = async (app, { context }) => {
  const { webhooks, baseUrl } = context;
  app.setSchemaErrorFormatter(schemaErrorsToValidation);
  // JSON Merge Patch bodies are JSON (RFC 7396); plain application/json is accepted as well.
  app.addContentTypeParser(
    'application/merge-patch+json',
    { parseAs: 'string' },
    app.getDefaultJsonParser('error', 'ignore'),
  );
  const page = (request: FastifyRequest<{ Querystring: PageQuery }>) => ({
    limit: request.query.limit ?? 20,
    offset: request.query.offset ?? 0,
  });

  app.post(
    '/webhooks/endpoints',
    {
      ...write,
      schema: {
        operationId: 'CreateWebhookEndpoint',
        body: S.EndpointCreateBody,
        response: { ...S.WebhookErrors, 201: S.Endpoint },
      },
    },
    async (request, reply) =>
      reply.status(201).send(webhooks.create(request.auth.organizationId, request.body)),
  );

  app.get<{ Querystring: PageQuery }>(
    '/webhooks/endpoints',
    {
      ...read,
      schema: {
        operationId: 'ListWebhookEndpoints',
        querystring: S.PageQuery,
        response: { ...S.WebhookErrors, 200: S.Paginated(S.Endpoint) },
      },
    },
    async (request) => {
      const p = page(request);
      const { count, rows } = webhooks.page(request.auth.organizationId, p.limit, p.offset);
      return envelope(request, baseUrl, p, count, rows);
    },
  );

  app.put(
    '/webhooks/endpoints/test',
    {
      ...write,
      schema: {
        operationId: 'TestWebhookEndpoint',
        body: S.EndpointTestBody,
        response: { ...S.WebhookErrors, 200: S.EndpointTestResult },
      },
    },
    async (request) => webhooks.test(request.auth.organizationId, request.body),
  );

  const one = { params: S.EndpointParams };
  app.get<IdParams>(
    '/webhooks/endpoints/:id',
    {
      ...read,
      schema: {
        operationId: 'GetWebhookEndpoint',
        ...one,
        response: { ...S.WebhookErrors, 200: S.Endpoint },
      },
    },
    async (request) => webhooks.get(request.auth.organizationId, request.params.id),
  );

  app.patch<IdParams>(
    '/webhooks/endpoints/:id',
    {
      ...write,
      schema: {
        operationId: 'UpdateWebhookEndpoint',
        consumes: MERGE_PATCH,
        ...one,
        body: S.EndpointPatchBody,
        response: { ...S.WebhookErrors, 200: S.Endpoint },
      },
    },
    async (request) => webhooks.update(request.auth.organizationId, request.params.id, request.body),
  );

  app.delete<IdParams>(
    '/webhooks/endpoints/:id',
    {
      ...write,
      schema: {
        operationId: 'DeleteWebhookEndpoint',
        ...one,
        response: { ...S.WebhookErrors, 204: S.NoContent },
      },
    },
    async (request, reply) => {
      webhooks.remove(request.auth.organizationId, request.params.id);
      return reply.status(204).send();
    },
  );

  registerEventRoutes(app, webhooks, baseUrl);
  registerSettingsRoutes(app, webhooks);
};

function registerEventRoutes(app: FastifyInstance, webhooks: WebhookService, baseUrl: BaseUrlPolicy): void {
  const one = { params: S.EndpointParams };
  const event = { params: S.EventParams };
  app.get<IdParams & { Querystring: EventQuery }>(
    '/webhooks/endpoints/:id/events',
    {
      ...read,
      schema: {
        operationId: 'ListFailedEvents',
        ...one,
        querystring: S.EventListQuery,
        response: { ...S.WebhookErrors, 200: S.Paginated(S.FailedEvent) },
      },
    },
    async (request) => {
      const p = { limit: request.query.limit ?? 20, offset: request.query.offset ?? 0 };
      const order = parseEventOrder(request.query.order);
      const { count, rows } = webhooks.events(
        request.auth.organizationId,
        request.params.id,
        order,
        p.limit,
        p.offset,
      );
      return envelope(request, baseUrl, p, count, rows);
    },
  );
  app.delete<IdParams>(
    '/webhooks/endpoints/:id/events',
    {
      ...write,
      schema: {
        operationId: 'DeleteFailedEvents',
        ...one,
        response: { ...S.WebhookErrors, 204: S.NoContent },
      },
    },
    async (request, reply) => {
      webhooks.removeAllEvents(request.auth.organizationId, request.params.id);
      return reply.status(204).send();
    },
  );

  app.put<IdParams>(
    '/webhooks/endpoints/:id/events/retry',
    {
      ...write,
      schema: {
        operationId: 'StartRetryAll',
        ...one,
        response: { ...S.WebhookErrors, 200: S.RetryAllRun },
      },
    },
    async (request, reply) =>
      reply.status(200).send(webhooks.startRetryAll(request.auth.organizationId, request.params.id)),
  );
  app.get<IdParams>(
    '/webhooks/endpoints/:id/events/retry',
    {
      ...read,
      schema: {
        operationId: 'GetRetryAll',
        ...one,
        response: { ...S.WebhookErrors, 200: S.RetryAllRun },
      },
    },
    async (request) => webhooks.retryAll(request.auth.organizationId, request.params.id),
  );
  app.delete<IdParams>(
    '/webhooks/endpoints/:id/events/retry',
    {
      ...write,
      schema: {
        operationId: 'CancelRetryAll',
        ...one,
        response: { ...S.WebhookErrors, 204: S.NoContent },
      },
    },
    async (request, reply) => {
      webhooks.cancelRetryAll(request.auth.organizationId, request.params.id);
      return reply.status(204).send();
    },
  );

  app.get<EventParams>(
    '/webhooks/endpoints/:id/events/:eventId',
    {
      ...read,
      schema: {
        operationId: 'GetFailedEvent',
        ...event,
        response: { ...S.WebhookErrors, 200: S.FailedEvent },
      },
    },
    async (request) => webhooks.event(request.auth.organizationId, request.params.id, request.params.eventId),
  );
  app.delete<EventParams>(
    '/webhooks/endpoints/:id/events/:eventId',
    {
      ...write,
      schema: {
        operationId: 'DeleteFailedEvent',
        ...event,
        response: { ...S.WebhookErrors, 204: S.NoContent },
      },
    },
    async (request, reply) => {
      webhooks.removeEvent(request.auth.organizationId, request.params.id, request.params.eventId);
      return reply.status(204).send();
    },
  );
  app.put<EventParams>(
    '/webhooks/endpoints/:id/events/:eventId/retry',
    {
      ...write,
      schema: {
        operationId: 'RetryFailedEvent',
        ...event,
        response: { ...S.WebhookErrors, 200: S.RetryResultSchema },
      },
    },
    async (request) =>
      webhooks.retryEvent(request.auth.organizationId, request.params.id, request.params.eventId),
  );
}

function registerSettingsRoutes(app: FastifyInstance, webhooks: WebhookService): void {
  app.get(
    '/webhooks/settings',
    {
      ...read,
      schema: {
        operationId: 'GetWebhookSettings',
        response: { ...S.WebhookErrors, 200: S.Settings },
      },
    },
    async (request) => webhooks.settings(request.auth.organizationId),
  );
  app.patch(
    '/webhooks/settings',
    {
      ...write,
      schema: {
        operationId: 'UpdateWebhookSettings',
        consumes: MERGE_PATCH,
        body: S.SettingsPatchBody,
        response: { ...S.WebhookErrors, 200: S.Settings },
      },
    },
    async (request) => webhooks.updateSettings(request.auth.organizationId, request.body),
  );
}
