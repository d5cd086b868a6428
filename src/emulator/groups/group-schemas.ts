/**
 * Route schemas of printing groups, printing users and printer-group assignments
 * (/printing/v1/groups/, /printing/v1/users/, /printing/v1/assignments/). Pure data.
 */
import { Type as T } from '@sinclair/typebox';
import { NoContent, Nullable, Uuid, pageOf, responses } from '../http/schemas.js';

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
