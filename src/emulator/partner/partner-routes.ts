/**
 * The partner API ({auth_url}/partner/v1/), for admins of a partner account (token with the
 * `account` scope; any other caller 403):
 *   POST/GET            /partner/v1/organizations/
 *   GET/PATCH/DELETE    /partner/v1/organizations/<organization_id>
 *   GET/POST            /partner/v1/organizations/<organization_id>/members/        (expand=user)
 *   GET/PATCH/DELETE    /partner/v1/organizations/<organization_id>/members/<user_id>
 *   GET                 /partner/v1/users/<user_id>/memberships/                    (expand=organization)
 *   GET                 /partner/v1/users/<user_id>/memberships/<organization_id>/
 * Organizations the partner does not manage answer 404.
 */
import type { FastifyRequest } from 'fastify';
import { ForbiddenError } from '../../lib/errors.js';
import { REQUIRED_SCOPE } from '../../protocol/oauth-scopes.js';
import type { RoutePlugin } from '../http/route-plugin.js';
import type { BaseUrlPolicy } from '../http/base-url.js';
import type { PartnerMemberService } from './partner-member-service.js';
import { requireScopes } from '../accounts/bearer-auth.js';
import { envelope, parsePage, requestBaseUrl } from '../http/pagination.js';
import { parseExpand } from './partner-member-service.js';
import { organizationResource, type PartnerOrganizationService } from './partner-organization-service.js';
import { partnerRequests, partnerSchemas } from './partner-schemas.js';
import { operation } from '../http/schemas.js';

type OrgParams = { Params: { orgId: string } };
type MemberParams = { Params: { orgId: string; userId: string } };
type UserParams = { Params: { userId: string } };

const ORGS = '/partner/v1/organizations';

/** What the partner API uses. */
export interface PartnerRouteContext {
  partnerOrganizations: PartnerOrganizationService;
  partnerMembers: PartnerMemberService;
  baseUrl: BaseUrlPolicy;
}

/** Registers the partner routes. */
export const partnerRoutes: RoutePlugin<PartnerRouteContext> = async (app, { context }) => {
  const { partnerOrganizations: orgs, partnerMembers: members, baseUrl } = context;
  const auth = { preHandler: [requireScopes(REQUIRED_SCOPE.account), partnerAdminOnly(orgs)] };
  const query = (request: FastifyRequest) => request.query as Record<string, unknown>;
  const partner = (request: FastifyRequest) => request.auth.organizationId;

  app.post(
    ORGS,
    {
      ...auth,
      schema: operation(
        'CreateOrganization',
        partnerSchemas.createOrganization,
        partnerRequests.createOrganization,
      ),
    },
    async (request, reply) =>
      reply.status(201).send(orgs.create(partner(request), request.body, requestBaseUrl(request, baseUrl))),
  );
  app.get(
    ORGS,
    { ...auth, schema: operation('ListOrganizations', partnerSchemas.listOrganizations) },
    async (request) => {
      const page = parsePage(query(request));
      const { count, results } = orgs.list(partner(request), page.limit, page.offset);
      return envelope(request, baseUrl, page, count, results);
    },
  );
  app.get<OrgParams>(
    `${ORGS}/:orgId`,
    { ...auth, schema: operation('GetOrganization', partnerSchemas.getOrganization) },
    async (request) => organizationResource(orgs.managed(partner(request), request.params.orgId)),
  );
  app.patch<OrgParams>(
    `${ORGS}/:orgId`,
    {
      ...auth,
      schema: operation('RenameOrganization', partnerSchemas.renameOrganization, partnerRequests.rename),
    },
    async (request) => orgs.rename(partner(request), request.params.orgId, request.body ?? {}),
  );
  app.delete<OrgParams>(
    `${ORGS}/:orgId`,
    { ...auth, schema: operation('DeleteOrganization', partnerSchemas.deleteOrganization) },
    async (request, reply) => {
      await orgs.delete(partner(request), request.params.orgId);
      return reply.status(204).send();
    },
  );

  app.get<OrgParams>(
    `${ORGS}/:orgId/members`,
    { ...auth, schema: operation('ListMembers', partnerSchemas.listMembers) },
    async (request) => {
      const page = parsePage(query(request));
      const expand = parseExpand(query(request)['expand'], 'user');
      const { count, results } = members.list(
        partner(request),
        request.params.orgId,
        expand,
        page.limit,
        page.offset,
      );
      return envelope(request, baseUrl, page, count, results);
    },
  );
  app.post<OrgParams>(
    `${ORGS}/:orgId/members`,
    { ...auth, schema: operation('AddMember', partnerSchemas.addMember, partnerRequests.addMember) },
    async (request, reply) =>
      reply.status(201).send(members.add(partner(request), request.params.orgId, request.body)),
  );
  app.get<MemberParams>(
    `${ORGS}/:orgId/members/:userId`,
    { ...auth, schema: operation('GetMember', partnerSchemas.getMember) },
    async (request) => {
      const expand = parseExpand(query(request)['expand'], 'user');
      return members.get(partner(request), request.params.orgId, request.params.userId, expand);
    },
  );
  app.patch<MemberParams>(
    `${ORGS}/:orgId/members/:userId`,
    { ...auth, schema: operation('UpdateMember', partnerSchemas.patchMember, partnerRequests.patchMember) },
    async (request) =>
      members.setRoles(partner(request), request.params.orgId, request.params.userId, request.body ?? {}),
  );
  app.delete<MemberParams>(
    `${ORGS}/:orgId/members/:userId`,
    { ...auth, schema: operation('RemoveMember', partnerSchemas.deleteMember) },
    async (request, reply) => {
      members.remove(partner(request), request.params.orgId, request.params.userId);
      return reply.status(204).send();
    },
  );

  app.get<UserParams>(
    '/partner/v1/users/:userId/memberships',
    { ...auth, schema: operation('ListMemberships', partnerSchemas.listMemberships) },
    async (request) => {
      const page = parsePage(query(request));
      const expand = parseExpand(query(request)['expand'], 'organization');
      const { count, results } = members.listOfUser(
        partner(request),
        request.params.userId,
        expand,
        page.limit,
        page.offset,
      );
      return envelope(request, baseUrl, page, count, results);
    },
  );
  app.get<MemberParams>(
    '/partner/v1/users/:userId/memberships/:orgId',
    { ...auth, schema: operation('GetMembership', partnerSchemas.getMembership) },
    async (request) => {
      const expand = parseExpand(query(request)['expand'], 'organization');
      return members.getOfUser(partner(request), request.params.userId, request.params.orgId, expand);
    },
  );
};

/** A pre-handler: 403 unless the caller is an admin (a user, not a client) of a partner account. */
function partnerAdminOnly(orgs: PartnerOrganizationService) {
  return async (request: FastifyRequest): Promise<void> => {
    const { kind, roles, organizationId } = request.auth;
    if (kind !== 'user' || !roles.includes('admin') || !orgs.isPartnerAccount(organizationId))
      throw new ForbiddenError('the partner API needs a token of an admin of a partner account');
  };
}
