/**
 * Route schemas of client management (/v1/oauth-clients/): the client resource (its secret only
 * in the answer that created a confidential client), the list envelope, and the shared error
 * body. Pure data.
 */
import { Type as T } from '@sinclair/typebox';
import {
  type DocumentedRequest,
  NoContent,
  PageQueryDoc,
  jsonBody,
  pageOf,
  queryOf,
  responses,
} from '../http/schemas.js';

const base = { tags: ['oauth clients'], security: [{ bearer: [] }] };
const ClientType = T.Union([T.Literal('public'), T.Literal('confidential')]);
const TenantMode = T.Union([T.Literal('single'), T.Literal('multi')]);

/** The client resource (GET, PATCH, and POST with the one-time secret). */
const ClientSchema = T.Object(
  {
    client_id: T.String(),
    client_secret: T.Optional(T.String({ description: 'confidential clients, in the creation answer only' })),
    name: T.String(),
    external_description: T.String(),
    redirect_urls: T.Array(T.String()),
    allowed_scopes: T.Array(T.String()),
    grant_types: T.Array(T.String()),
    client_type: ClientType,
    tenant_mode: TenantMode,
  },
  { additionalProperties: false },
);

const ClientSummary = T.Object(
  {
    client_id: T.String(),
    name: T.String(),
    client_type: ClientType,
    grant_types: T.Array(T.String()),
    tenant_mode: TenantMode,
  },
  { additionalProperties: false },
);

const IdParams = T.Object({ clientId: T.String() });

/** Schemas of the client-management routes. */
export const clientSchemas = {
  create: { ...base, response: responses({ 201: ClientSchema }, 400, 401, 403, 409, 429) },
  list: { ...base, response: responses({ 200: pageOf(ClientSummary) }, 400, 401, 403) },
  get: { ...base, params: IdParams, response: responses({ 200: ClientSchema }, 401, 403, 404) },
  patch: { ...base, params: IdParams, response: responses({ 200: ClientSchema }, 400, 401, 403, 404, 409) },
  delete: { ...base, params: IdParams, response: responses({ 204: NoContent }, 401, 403, 404, 409) },
};

const Scopes = T.String({
  maxLength: 2048,
  description:
    'space-separated scopes (printing.*, reporting.*, cloud.*, webhooks.*, openid, profile, email)',
  examples: ['printing openid'],
});
const RedirectUrls = T.Array(
  T.String({ description: 'https, http://localhost with any port and path, or a reverse-DNS native scheme' }),
  { maxItems: 20 },
);
const common = {
  name: T.String({ minLength: 1, description: 'shown on the consent screen' }),
  external_description: T.Optional(T.String({ description: 'shown on the consent screen' })),
  allowed_scopes: T.Optional(Scopes),
  tenant_mode: T.Optional(T.Union([T.Literal('single'), T.Literal('multi')], { default: 'single' })),
};

/** Requests of the client routes (checked by the service; http/schemas.ts DocumentedRequest). */
export const clientRequests = {
  createPublic: jsonBody({ ...common, redirect_urls: RedirectUrls }, true, {
    description:
      'unknown fields are ignored; grant_types is refused (a public client is authorization_code with PKCE)',
    examples: [
      { name: 'My app', redirect_urls: ['http://localhost:8080/callback'], allowed_scopes: 'printing' },
    ],
  }),
  createConfidential: jsonBody(
    {
      ...common,
      grant_types: T.Array(T.Union([T.Literal('authorization_code'), T.Literal('pairing_code')]), {
        minItems: 1,
        maxItems: 1,
      }),
      redirect_urls: T.Optional(RedirectUrls),
    },
    true,
    { description: 'redirect_urls is required for authorization_code; unknown fields are ignored' },
  ),
  list: queryOf(PageQueryDoc),
  patch: jsonBody(
    {
      name: T.Optional(common.name),
      external_description: common.external_description,
      redirect_urls: T.Optional(RedirectUrls),
      allowed_scopes: T.Optional(Scopes),
    },
    false,
    { description: 'only these fields; any other (tenant_mode, client_type, grant_types, unknown) is a 400' },
  ),
} satisfies Record<string, DocumentedRequest>;
