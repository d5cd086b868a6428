/**
 * Route schemas of the account API (/v1/users/, /v1/userinvitations/) and the mail outbox:
 * they shape the OpenAPI document and the serialized responses. Pure data.
 */
import { Type as T } from '@sinclair/typebox';
import { type DocumentedRequest, jsonBody, queryOf } from '../http/schemas.js';
import {
  DateTime,
  Nullable,
  Roles,
  Uuid,
  errorResponses,
  otherContent,
  pageOf,
  pageOrError,
} from '../http/schemas.js';

/** The account user resource. */
export const AccountUserSchema = T.Object(
  {
    id: Uuid,
    email: T.String(),
    first_name: T.String(),
    last_name: T.String(),
    display_name: T.String(),
    date_joined: DateTime,
    cloud_profile: T.Null(),
    id_profile: T.Null(),
    user_invitations: T.Null(),
    roles: Roles,
    is_verified: T.Boolean(),
  },
  { additionalProperties: false },
);

/** The invitation resource. */
export const InvitationSchema = T.Object(
  {
    id: Uuid,
    updated: DateTime,
    email: T.String(),
    expire_date: DateTime,
    delivery_status: T.Literal('SENT'),
    invitation_status: T.Union([T.Literal('OPEN'), T.Literal('ACCEPTED'), T.Literal('EXPIRED')]),
  },
  { additionalProperties: false },
);

const MailSchema = T.Object(
  {
    id: Uuid,
    to: T.String(),
    subject: T.String(),
    body: T.String(),
    link: Nullable(T.String({ format: 'uri' })),
    created: DateTime,
  },
  { additionalProperties: false },
);

const IdParams = T.Object({ id: T.String() });
const PageQuery = T.Object({
  limit: T.Optional(T.String({ description: '1 to 1000, default 20' })),
  offset: T.Optional(T.String({ description: 'from 0' })),
});
const PageNumberQuery = T.Object({
  ...PageQuery.properties,
  page: T.Optional(T.String({ description: 'from 1 (when limit and offset are absent)' })),
  per_page: T.Optional(T.String({ description: '1 to 1000' })),
});
const security = [{ bearer: [] }];
const users = { tags: ['account users'], security };
const invitations = { tags: ['invitations'], security };

/** Schemas of the account-user routes. */
export const accountUserSchemas = {
  list: {
    ...users,
    querystring: PageNumberQuery,
    response: { 200: pageOf(AccountUserSchema), ...errorResponses(400, 401, 403) },
  },
  get: { ...users, params: IdParams, response: { 200: AccountUserSchema, ...errorResponses(401, 403, 404) } },
  patch: {
    ...users,
    params: IdParams,
    response: { 200: AccountUserSchema, ...errorResponses(400, 401, 403, 404, 409) },
  },
  delete: { ...users, params: IdParams, response: { 204: T.Null(), ...errorResponses(401, 403, 404, 409) } },
};

/** Schemas of the invitation routes. */
export const invitationSchemas = {
  create: { ...invitations, response: { 201: InvitationSchema, ...errorResponses(400, 401, 403, 409) } },
  list: {
    ...invitations,
    querystring: PageQuery,
    response: { 200: pageOf(InvitationSchema), ...errorResponses(400, 401, 403) },
  },
  resend: {
    ...invitations,
    params: IdParams,
    response: { 200: InvitationSchema, ...errorResponses(400, 401, 403, 404, 409) },
  },
};

/** Schema of GET /_emulator/mail (JSON form). */
export const mailSchema = {
  tags: ['emulator'],
  description:
    'Loopback clients (no forwarding headers) read every mail; anyone else needs the bearer token ' +
    "of an organization admin (scope account) and reads that organization's mails.",
  security: [{}, { bearer: [] }] as Record<string, string[]>[],
  querystring: T.Object({ ...PageQuery.properties, to: T.Optional(T.String()) }),
  response: { 200: pageOf(MailSchema), ...errorResponses(400, 401, 403) },
};

/** Schema of GET /v1/users/me/: the account user of the token with its home organization. */
export const usersMeSchema = {
  ...users,
  response: {
    200: T.Object(
      { ...AccountUserSchema.properties, organization_id: Uuid },
      { additionalProperties: false },
    ),
    ...errorResponses(401, 403),
  },
};

/** Schema of the invitation acceptance page (GET and POST /accounts/invitation?token=). */
export const invitationPageSchema = {
  tags: ['invitations'],
  response: {
    200: otherContent('text/html', 'the acceptance form, or the page saying the user joined'),
    400: pageOrError('the form again with what is wrong'),
    401: otherContent('text/html', 'the form again: wrong password of the existing account'),
    403: otherContent('text/html', 'the form was not sent from the page (CSRF token missing or wrong)'),
    404: otherContent('text/html', 'unknown or replaced link'),
    410: otherContent('text/html', 'the invitation has expired or was used'),
    429: pageOrError('too many wrong passwords'),
  },
};

const RolesInput = T.Union(
  [
    T.Literal('admin'),
    T.Literal('user'),
    T.Array(T.Union([T.Literal('admin'), T.Literal('user')]), { minItems: 1, uniqueItems: true }),
  ],
  {
    description: 'admin (admin and user), user, or an array of them',
  },
);
const Email = T.String({ format: 'email', maxLength: 254 });
const ExpireDate = T.String({ format: 'date-time', description: 'when the invitation expires (future)' });
const FORM = 'application/x-www-form-urlencoded';

/** Requests of the account routes (checked by the services; http/schemas.ts DocumentedRequest). */
export const accountRequests = {
  patchUser: jsonBody(
    {
      first_name: T.Optional(T.String({ maxLength: 150 })),
      last_name: T.Optional(T.String({ maxLength: 150 })),
      email: T.Optional(Email),
      roles: T.Optional(RolesInput),
    },
    false,
    { description: 'only these fields; any other is a 400 naming it' },
  ),
  createInvitation: jsonBody({ email: Email, expire_date: ExpireDate }, true, {
    examples: [{ email: 'new.user@example.com', expire_date: '2030-01-31T12:00:00Z' }],
  }),
  resendInvitation: jsonBody({ email: T.Optional(Email), expire_date: T.Optional(ExpireDate) }, false),
  invitationPage: queryOf({ token: T.String({ description: 'the token of the invitation link' }) }),
  acceptInvitation: {
    bodies: {
      [FORM]: T.Object(
        {
          token: T.String(),
          csrf_token: T.String(),
          first_name: T.String(),
          last_name: T.String(),
          password: T.String(),
        },
        { additionalProperties: true },
      ),
    },
  },
} satisfies Record<string, DocumentedRequest>;
