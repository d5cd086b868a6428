/**
 * Route schemas of the partner API: they shape the OpenAPI document and the serialized
 * responses. Pure data.
 */
import { Type as T } from '@sinclair/typebox';
import { InvitationSchema } from '../accounts/account-schemas.js';
import { DateTime, Nullable, Roles, Uuid, errorResponses, pageOf } from '../http/schemas.js';
import { type DocumentedRequest, jsonBody } from '../http/schemas.js';

const OrganizationSchema = T.Object(
  {
    id: Uuid,
    name: T.String(),
    cloud_profile: T.Null(),
    currency_code: T.Union([T.Literal('USD'), T.Literal('EUR')]),
  },
  { additionalProperties: false },
);

const CreatedWithUser = T.Object(
  { id: Uuid, name: T.String(), admin_user: Uuid },
  { additionalProperties: false },
);
const CreatedWithInvitation = T.Object(
  {
    id: Uuid,
    name: T.String(),
    admin_user_invitation: T.Object(
      {
        ...InvitationSchema.properties,
        user: T.Object(
          { id: Uuid, first_name: T.String(), last_name: T.String(), preferred_language: T.String() },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

const ExpandedUser = T.Object(
  {
    id: Uuid,
    email: T.String(),
    first_name: T.String(),
    last_name: T.String(),
    created: DateTime,
    is_verified: T.Boolean(),
    preferred_language: T.String(),
  },
  { additionalProperties: false },
);
const MemberSchema = T.Object(
  { user: T.Union([Uuid, ExpandedUser]), roles: Roles },
  { additionalProperties: false },
);

const ExpandedOrganization = T.Object(
  { id: Uuid, name: T.String(), cloud_profile: T.Null(), owner: Nullable(Uuid), roles: T.Null() },
  { additionalProperties: false },
);
const MembershipSchema = T.Object(
  { organization: T.Union([Uuid, ExpandedOrganization]), roles: Roles },
  { additionalProperties: false },
);

const OrgParams = T.Object({ orgId: T.String() });
const MemberParams = T.Object({ orgId: T.String(), userId: T.String() });
const UserParams = T.Object({ userId: T.String() });
const PageQuery = T.Object({ limit: T.Optional(T.String()), offset: T.Optional(T.String()) });
const ExpandQuery = (value: string) =>
  T.Object({ ...PageQuery.properties, expand: T.Optional(T.String({ description: `only ${value}` })) });
const base = { tags: ['partner'], security: [{ bearer: [] }] };
const read = errorResponses(400, 401, 403, 404);
const write = errorResponses(400, 401, 403, 404, 409);

/** Schemas of the partner routes. */
export const partnerSchemas = {
  createOrganization: {
    ...base,
    response: {
      201: T.Union([CreatedWithUser, CreatedWithInvitation]),
      ...errorResponses(400, 401, 403, 409),
    },
  },
  listOrganizations: {
    ...base,
    querystring: PageQuery,
    response: { 200: pageOf(OrganizationSchema), ...read },
  },
  getOrganization: { ...base, params: OrgParams, response: { 200: OrganizationSchema, ...read } },
  renameOrganization: { ...base, params: OrgParams, response: { 200: OrganizationSchema, ...write } },
  deleteOrganization: { ...base, params: OrgParams, response: { 204: T.Null(), ...write } },
  listMembers: {
    ...base,
    params: OrgParams,
    querystring: ExpandQuery('user'),
    response: { 200: pageOf(MemberSchema), ...read },
  },
  addMember: { ...base, params: OrgParams, response: { 201: MemberSchema, ...write } },
  getMember: {
    ...base,
    params: MemberParams,
    querystring: ExpandQuery('user'),
    response: { 200: MemberSchema, ...read },
  },
  patchMember: { ...base, params: MemberParams, response: { 200: MemberSchema, ...write } },
  deleteMember: { ...base, params: MemberParams, response: { 204: T.Null(), ...write } },
  listMemberships: {
    ...base,
    params: UserParams,
    querystring: ExpandQuery('organization'),
    response: { 200: pageOf(MembershipSchema), ...read },
  },
  getMembership: {
    ...base,
    params: MemberParams,
    querystring: ExpandQuery('organization'),
    response: { 200: MembershipSchema, ...read },
  },
};

const Currency = T.Union([T.Literal('USD'), T.Literal('EUR')]);

/** Requests of the partner routes (checked by the services; http/schemas.ts DocumentedRequest). */
export const partnerRequests = {
  createOrganization: {
    body: T.Union(
      [
        T.Object(
          { name: T.String({ minLength: 1 }), currency_code: Currency, admin_user: Uuid },
          { additionalProperties: true, title: 'with an existing user' },
        ),
        T.Object(
          {
            name: T.String({ minLength: 1 }),
            currency_code: Currency,
            admin_user_invitation: T.Object({
              email: T.String({ format: 'email' }),
              expire_date: T.String({ format: 'date-time' }),
              user: T.Object({
                first_name: T.String(),
                last_name: T.String(),
                preferred_language: T.Union([T.Literal('en'), T.Literal('de')]),
              }),
            }),
          },
          { additionalProperties: true, title: 'with an invitation' },
        ),
      ],
      { description: 'give admin_user or admin_user_invitation' },
    ),
  },
  rename: jsonBody({ name: T.String({ minLength: 1 }) }, true),
  addMember: jsonBody(
    {
      user: Uuid,
      roles: T.Union([T.Literal('admin'), T.Literal('user'), T.Array(T.String(), { minItems: 1 })]),
    },
    true,
  ),
  patchMember: jsonBody(
    { roles: T.Union([T.Literal('admin'), T.Literal('user'), T.Array(T.String(), { minItems: 1 })]) },
    false,
  ),
} satisfies Record<string, DocumentedRequest>;
