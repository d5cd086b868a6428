/**
 * The admin API's printing groups and printing user settings:
 *   GET    /printing/v1/groups/              paginated groups (num_members, num_printers computed)
 *   POST   /printing/v1/groups/              201 group (admin)
 *   GET    /printing/v1/groups/<id>/         group
 *   PATCH  /printing/v1/groups/<id>/         group (admin; name and description required)
 *   DELETE /printing/v1/groups/<id>/         204 (admin); its memberships and assignments go too
 *   GET    /printing/v1/users/               paginated printing user settings
 *   GET    /printing/v1/users/<id>/          printing user settings
 *   PATCH  /printing/v1/users/<id>/          (admin) groups replace the memberships
 * Every call needs printing or printing.connectors, as the printer routes do. Group reads are
 * open to every user of the organization, like printer and connector reads; an ordinary user
 * reads only their own printing settings (as with account users, the list holds only them), a
 * client_credentials token none; writes need the admin role. Ids of another organization: 404.
 */
import type { FastifyRequest } from 'fastify';
import type { RoutePlugin } from '../http/route-plugin.js';
import type { BaseUrlPolicy } from '../http/base-url.js';
import type { GroupService } from './group-service.js';
import { requireAnyScope } from '../accounts/bearer-auth.js';
import { forbidden } from '../http/http-errors.js';
import { envelope, parsePage } from '../http/pagination.js';
import { groupToWire } from './group-service.js';
import { groupRequests, groupSchemas } from './group-schemas.js';
import { operation } from '../http/schemas.js';

type IdParams = { Params: { id: string } };

/** 403 unless the caller is an admin of the organization. */
export function requireAdmin(request: FastifyRequest, action: string): void {
  if (!request.auth.roles.includes('admin')) throw forbidden(`${action} needs the admin role`);
}

/** What the printing-group and printing-user routes use. */
export interface GroupRouteContext {
  groups: GroupService;
  baseUrl: BaseUrlPolicy;
}

/** Registers the group and printing user routes. */
export const printingGroupRoutes: RoutePlugin<GroupRouteContext> = async (app, { context }) => {
  const { groups, baseUrl } = context;
  const auth = { preHandler: requireAnyScope('printing', 'printing.connectors') };

  app.get(
    '/printing/v1/groups',
    { ...auth, schema: operation('ListGroups', groupSchemas.list, groupRequests.page) },
    async (request) => {
      const page = parsePage(request.query as Record<string, unknown>);
      const { count, rows } = groups.page(request.auth.organizationId, page.limit, page.offset);
      return envelope(request, baseUrl, page, count, rows);
    },
  );

  app.post(
    '/printing/v1/groups',
    { ...auth, schema: operation('CreateGroup', groupSchemas.create, groupRequests.create) },
    async (request, reply) => {
      requireAdmin(request, 'creating a group');
      return reply.status(201).send(groups.create(request.auth.organizationId, request.body));
    },
  );

  app.get<IdParams>(
    '/printing/v1/groups/:id',
    { ...auth, schema: operation('GetGroup', groupSchemas.get) },
    async (request) => groupToWire(groups.require(request.auth.organizationId, request.params.id)),
  );

  app.patch<IdParams>(
    '/printing/v1/groups/:id',
    { ...auth, schema: operation('UpdateGroup', groupSchemas.update, groupRequests.update) },
    async (request) => {
      requireAdmin(request, 'changing a group');
      return groups.update(request.auth.organizationId, request.params.id, request.body);
    },
  );

  app.delete<IdParams>(
    '/printing/v1/groups/:id',
    { ...auth, schema: operation('DeleteGroup', groupSchemas.delete) },
    async (request, reply) => {
      requireAdmin(request, 'deleting a group');
      groups.remove(request.auth.organizationId, request.params.id);
      return reply.status(204).send();
    },
  );

  app.get(
    '/printing/v1/users',
    { ...auth, schema: operation('ListPrintingUsers', groupSchemas.listUsers, groupRequests.page) },
    async (request) => {
      const page = parsePage(request.query as Record<string, unknown>);
      const org = request.auth.organizationId;
      if (request.auth.roles.includes('admin')) {
        const { count, rows } = groups.pageUsers(org, page.limit, page.offset);
        return envelope(request, baseUrl, page, count, rows);
      }
      const own = [groups.user(org, ownUserId(request))];
      return envelope(request, baseUrl, page, 1, own.slice(page.offset, page.offset + page.limit));
    },
  );

  app.get<IdParams>(
    '/printing/v1/users/:id',
    { ...auth, schema: operation('GetPrintingUser', groupSchemas.getUser) },
    async (request) => {
      const org = request.auth.organizationId;
      const user = groups.requireUser(org, request.params.id);
      if (!request.auth.roles.includes('admin') && user.id !== ownUserId(request))
        throw forbidden("reading another user's printing settings needs the admin role");
      return groups.user(org, user.id);
    },
  );

  app.patch<IdParams>(
    '/printing/v1/users/:id',
    { ...auth, schema: operation('UpdatePrintingUser', groupSchemas.patchUser, groupRequests.patchUser) },
    async (request) => {
      requireAdmin(request, "changing a user's printing settings");
      return groups.updateUser(request.auth.organizationId, request.params.id, request.body);
    },
  );
};

/** The caller's user id; a client_credentials caller (no user, no role) gets 403. */
function ownUserId(request: FastifyRequest): string {
  if (request.auth.kind !== 'user')
    throw forbidden('printing user settings need an admin or a signed-in user');
  return request.auth.userId;
}
