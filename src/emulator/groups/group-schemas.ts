/**
 * Route schemas of printing groups, printing users and printer-group assignments
 * (/printing/v1/groups/, /printing/v1/users/, /printing/v1/assignments/). Pure data.
 */
import { Type as T } from '@sinclair/typebox';
import {
  type DocumentedRequest,
  NoContent,
  Nullable,
  PageQueryDoc,
  Uuid,
  jsonBody,
  pageOf,
  queryOf,
  responses,
} from '../http/schemas.js';

const base = { tags: ['printing groups'], security: [{ bearer: [] }] };

const GroupSchema = T.Object(
  {
    id: Uuid,
    name: T.String(),
    description: T.String(),
    local_printing_enabled: T.Boolean(),
    myprinters_enabled: T.Boolean(),
    origin: T.Object({ provider: T.String() }, { additionalProperties: true }),
    organization_id: Uuid,
    num_members: T.Integer(),
    num_printers: T.Integer(),
  },
  { additionalProperties: true },
);

const PrintingUserSchema = T.Object(
  {
    id: Uuid,
    local_printing_enabled: T.Boolean(),
    self_service_enabled: T.Boolean(),
    myprinters_enabled: T.Boolean(),
    pull_printing_enabled: T.Boolean(),
    groups: T.Array(T.Object({ group_id: Uuid }, { additionalProperties: true })),
  },
  { additionalProperties: true },
);

const AssignmentSchema = T.Object(
  {
    printer_id: Uuid,
    printer_name: T.String(),
    assignments: T.Array(
      T.Object(
        {
          settings: T.Unknown({ description: 'null' }),
          groups: T.Array(
            T.Object(
              {
                group_id: Uuid,
                group_name: T.String(),
                group_foreign_id: Nullable(T.String()),
                force_chosen: T.Boolean(),
              },
              { additionalProperties: true },
            ),
          ),
        },
        { additionalProperties: true },
      ),
    ),
  },
  { additionalProperties: true },
);

const IdParams = T.Object({ id: T.String() });

/** Schemas of the group, printing-user and assignment routes. */
export const groupSchemas = {
  list: { ...base, response: responses({ 200: pageOf(GroupSchema) }, 400, 401, 403) },
  create: { ...base, response: responses({ 201: GroupSchema }, 400, 401, 403, 409) },
  get: { ...base, params: IdParams, response: responses({ 200: GroupSchema }, 401, 403, 404) },
  update: { ...base, params: IdParams, response: responses({ 200: GroupSchema }, 400, 401, 403, 404, 409) },
  delete: { ...base, params: IdParams, response: responses({ 204: NoContent }, 401, 403, 404) },
  listUsers: { ...base, response: responses({ 200: pageOf(PrintingUserSchema) }, 400, 401, 403) },
  getUser: { ...base, params: IdParams, response: responses({ 200: PrintingUserSchema }, 401, 403, 404) },
  patchUser: {
    ...base,
    params: IdParams,
    response: responses({ 200: PrintingUserSchema }, 400, 401, 403, 404),
  },
  listAssignments: { ...base, response: responses({ 200: pageOf(AssignmentSchema) }, 400, 401, 403) },
  patchAssignment: {
    ...base,
    params: IdParams,
    response: responses({ 200: AssignmentSchema }, 400, 401, 403, 404),
  },
  deleteAssignment: { ...base, params: IdParams, response: responses({ 204: NoContent }, 401, 403, 404) },
};

const GroupRef = T.Object(
  { group_id: T.String({ format: 'uuid' }), force_chosen: T.Optional(T.Boolean()) },
  { additionalProperties: true },
);
const groupFields = {
  description: T.Optional(T.Union([T.String(), T.Null()])),
  organization_id: T.Optional(T.String({ format: 'uuid' })),
  local_printing_enabled: T.Optional(T.Boolean()),
  myprinters_enabled: T.Optional(T.Boolean()),
  origin: T.Optional(T.Union([T.Object({ provider: T.String({ minLength: 1 }) }), T.Null()])),
};
const AssignmentChange = jsonBody(
  {
    assignment: T.Array(
      T.Object(
        { groups: T.Array(GroupRef), settings: T.Optional(T.Unknown()) },
        { additionalProperties: false },
      ),
    ),
    printer_id: T.Optional(T.Unknown({ description: 'read-only, as GET gives it' })),
    printer_name: T.Optional(T.Unknown({ description: 'read-only, as GET gives it' })),
  },
  false,
);

/** Requests of the group, printing-user and assignment routes (http/schemas.ts DocumentedRequest). */
export const groupRequests = {
  page: queryOf(PageQueryDoc),
  create: jsonBody({ name: T.String({ minLength: 1 }), ...groupFields }, true, {
    examples: [{ name: 'Finance', description: 'Finance department' }],
  }),
  update: jsonBody(
    {
      name: T.String({ minLength: 1 }),
      ...groupFields,
      description: T.Union([T.String(), T.Null()]),
      id: T.Optional(T.Unknown()),
      num_members: T.Optional(T.Unknown()),
      num_printers: T.Optional(T.Unknown()),
    },
    false,
    { description: 'name and description are required (the spec’s PATCH row)' },
  ),
  patchUser: jsonBody(
    {
      groups: T.Array(GroupRef, { description: 'the full list of the user’s groups (replaces it)' }),
      id: T.Optional(T.Unknown()),
      local_printing_enabled: T.Optional(T.Boolean()),
      self_service_enabled: T.Optional(T.Boolean()),
      myprinters_enabled: T.Optional(T.Boolean()),
      pull_printing_enabled: T.Optional(T.Boolean()),
    },
    false,
  ),
  listAssignments: queryOf({
    ...PageQueryDoc,
    group: T.Optional(T.String({ format: 'uuid', description: 'only printers of this group' })),
  }),
  changeAssignment: AssignmentChange,
} satisfies Record<string, DocumentedRequest>;
