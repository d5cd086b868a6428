/**
 * The admin API's printer-group assignments:
 *   GET    /printing/v1/assignments?group=&limit=&offset=   paginated elements, one per printer
 *                                                         that has an assignment (by name)
 *   PATCH  /printing/v1/assignments/<printer_id>/          adds the listed groups (admin); the
 *                                                         printer's element
 *   DELETE /printing/v1/assignments/<printer_id>/          removes the listed groups (admin); 204
 * Needs printing or printing.connectors; reads are open to every user of the organization, like
 * printer reads. A `group` that is not a UUID is a 400; an unknown group or one of another
 * organization filters to an empty page. Printers of another organization: 404.
 */
import { ValidationError } from '../../lib/errors.js';
import type { RoutePlugin } from '../http/route-plugin.js';
import type { BaseUrlPolicy } from '../http/base-url.js';
import type { AssignmentService } from './assignment-service.js';
import { requireAnyScope } from '../accounts/bearer-auth.js';
import { envelope, parsePage } from '../http/pagination.js';
import { requireAdmin } from './group-routes.js';
import { groupRequests, groupSchemas } from './group-schemas.js';
import { operation } from '../http/schemas.js';

type IdParams = { Params: { id: string } };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What the printer-group assignment routes use. */
export interface AssignmentRouteContext {
  assignments: AssignmentService;
  baseUrl: BaseUrlPolicy;
}

/** Registers the assignment routes. */
export const assignmentRoutes: RoutePlugin<AssignmentRouteContext> = async (app, { context }) => {
  const { assignments, baseUrl } = context;
  const auth = { preHandler: requireAnyScope('printing', 'printing.connectors') };

  app.get(
    '/printing/v1/assignments',
    {
      ...auth,
      schema: operation('ListAssignments', groupSchemas.listAssignments, groupRequests.listAssignments),
    },
    async (request) => {
      const query = request.query as Record<string, unknown>;
      const page = parsePage(query);
      const group = query['group'];
      if (group !== undefined && (typeof group !== 'string' || !UUID.test(group))) {
        throw new ValidationError('group', 'must be a group id (UUID)');
      }
      const filter = group === undefined ? {} : { groupId: (group as string).toLowerCase() };
      const { count, rows } = assignments.page(request.auth.organizationId, { ...page, ...filter });
      return envelope(request, baseUrl, page, count, rows);
    },
  );

  app.patch<IdParams>(
    '/printing/v1/assignments/:id',
    {
      ...auth,
      schema: operation('UpdateAssignment', groupSchemas.patchAssignment, groupRequests.changeAssignment),
    },
    async (request) => {
      requireAdmin(request, 'assigning a printer to groups');
      return assignments.add(request.auth.organizationId, request.params.id, request.body);
    },
  );

  app.delete<IdParams>(
    '/printing/v1/assignments/:id',
    {
      ...auth,
      schema: operation('RemoveAssignment', groupSchemas.deleteAssignment, groupRequests.changeAssignment),
    },
    async (request, reply) => {
      requireAdmin(request, "removing a printer's group assignments");
      assignments.remove(request.auth.organizationId, request.params.id, request.body);
      return reply.status(204).send();
    },
  );
};
