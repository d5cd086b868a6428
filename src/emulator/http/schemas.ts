/**
 * JSON Schemas shared by route definitions (and so by the OpenAPI document): the one error
 * body, the paginated list envelope and the standard error responses. Pure data.
 */
import { type TSchema, Type as T } from '@sinclair/typebox';

/** The one error body of every JSON error (docs/emulator.md "Errors"). */
export const ErrorBodySchema = T.Object(
  {
    error: T.String({ description: 'stable error code' }),
    message: T.String({ description: 'a sentence for people; never a secret' }),
    field: T.Optional(T.String({ description: 'the input at fault' })),
    rule: T.Optional(T.String({ description: 'the rule it broke' })),
    error_description: T.Optional(T.String({ description: 'OAuth errors (RFC 6749/6750)' })),
    errors: T.Optional(
      T.Array(
        T.Object(
          { error: T.String(), message: T.String(), field: T.String(), rule: T.String() },
          { additionalProperties: false },
        ),
      ),
    ),
  },
  { additionalProperties: false },
);

/** Standard statuses of a bearer-protected route: no or bad token (401), missing scope or role (403). */
export const BEARER_ERRORS = [401, 403] as const;

/** A response of another content type than JSON (HTML pages, XML, plain text), for the document. */
export function otherContent(contentType: string, description: string): TSchema {
  return {
    description,
    content: { [contentType]: { schema: { type: 'string' } } },
  } as unknown as TSchema;
}

/** An HTML page, or the shared JSON error body when the request is refused before any page. */
export function pageOrError(description: string): TSchema {
  return {
    description,
    content: {
      'text/html': { schema: { type: 'string' } },
      'application/json': { schema: ErrorBodySchema },
    },
  } as unknown as TSchema;
}

/** A 303 See Other redirect (no body). */
export const Redirect = { description: 'redirect (Location header)', type: 'null' } as unknown as TSchema;

/** An answer without a body (204, or 201 of the storage endpoint). */
export const NoContent = T.Null({ description: 'no body' });

/**
 * What a route takes, documented in the OpenAPI document but checked by the route's own service
 * rather than by Fastify: the services parse leniently (keys in any letter case, numbers as
 * strings, unknown fields ignored), which a Fastify schema would turn into rejections or silent
 * rewrites. `bodies` gives one schema per content type; `body` is JSON only.
 */
export interface DocumentedRequest {
  querystring?: TSchema;
  headers?: TSchema;
  body?: TSchema;
  bodies?: Record<string, TSchema>;
}

/**
 * A route's schema with its OpenAPI `operationId`: the name clients and generated code call the
 * operation by (the spec's name where it gives one: Print, Status...). Unique across the document
 * (test/unit/emulator/http/openapi-document.test.ts); kept beside the route so it moves with it.
 * `request` documents inputs the route's service checks itself (DocumentedRequest).
 */
export function operation<S extends object>(
  operationId: string,
  schema: S,
  request?: DocumentedRequest,
): S & { operationId: string } {
  return { ...schema, operationId, ...(request ? { documentedRequest: request } : {}) };
}

/** The `response` map of a route: its answers plus the shared error body for each error status. */
export function responses(
  answers: Record<number, TSchema>,
  ...errorStatuses: readonly number[]
): Record<number, TSchema> {
  return { ...answers, ...errorResponses(...errorStatuses) };
}

/** Error responses by status, for a route's `response` schema. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, ErrorBodySchema]));
}

/** The paginated list envelope `{ count, next, previous, results }` of `item`. */
export function pageOf(item: TSchema): TSchema {
  return T.Object(
    {
      count: T.Integer({ minimum: 0 }),
      next: T.Union([T.String({ format: 'uri' }), T.Null()]),
      previous: T.Union([T.String({ format: 'uri' }), T.Null()]),
      results: T.Array(item),
    },
    { additionalProperties: false },
  );
}

/** A UUID string. */
export const Uuid = T.String({ format: 'uuid' });
/** An ISO 8601 date-time string. */
export const DateTime = T.String({ format: 'date-time' });
/** Roles of a user in an organization. */
export const Roles = T.Array(T.Union([T.Literal('admin'), T.Literal('user')]));
/** A nullable value. */
export const Nullable = (schema: TSchema) => T.Union([schema, T.Null()]);

/** The `limit` / `offset` query of the paginated lists, as the routes read it (http/pagination.ts). */
export const PageQueryDoc = {
  limit: T.Optional(T.Integer({ minimum: 1, maximum: 1000, default: 20, description: 'page size' })),
  offset: T.Optional(T.Integer({ minimum: 0, default: 0, description: 'entries to skip' })),
};

/** A documented query of `fields` (plus extra ones), no other parameter. */
export function queryOf(fields: Record<string, TSchema> = {}): DocumentedRequest {
  return { querystring: T.Object(fields, { additionalProperties: false }) };
}

/** A documented JSON body; `open` when the route ignores fields it does not know. */
export function jsonBody(
  fields: Record<string, TSchema>,
  open: boolean,
  extra: object = {},
): DocumentedRequest {
  return { body: T.Object(fields, { additionalProperties: open, ...extra }) };
}
