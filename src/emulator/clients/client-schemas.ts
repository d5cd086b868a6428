/**
 * Route schemas of client management (/v1/oauth-clients/): the client resource (its secret only
 * in the answer that created a confidential client), the list envelope, and the shared error
 * body. Pure data.
 */
import { Type as T } from '@sinclair/typebox';
import { NoContent, pageOf, responses } from '../http/schemas.js';

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
