/**
 * GroupService: printing groups and users' printing settings of an organization (admin spec
 * Group and Printing user settings). Everything is scoped to the caller's organization: ids of
 * another organization are not found (404). Validation is pure (group-rules.ts). No resources
 * to clean up.
 */
import type { Clock } from '../../lib/clock.js';
import { NotFoundError, ValidationError, ValidationErrors } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type { GroupWire, PrintingUserWire } from '../../protocol/printing-groups.js';
import type { EmulatorStore } from '../emulator-store.js';
import type { GroupFields, GroupRecord } from './group-repo.js';
import type { OrganizationUserReader, PrintingSettingsRecords, User } from '../accounts/accounts-face.js';
import {
  DEFAULT_ORIGIN_PROVIDER,
  type GroupRef,
  parseGroupInput,
  parsePrintingUserInput,
} from './group-rules.js';

/** The Group object of a stored group. */
export function groupToWire(g: GroupRecord): GroupWire {
  return {
    id: g.id,
    name: g.name,
    description: g.description,
    local_printing_enabled: g.localPrintingEnabled,
    myprinters_enabled: g.myprintersEnabled,
    origin: { provider: g.originProvider },
    organization_id: g.organizationId,
    num_members: g.numMembers,
    num_printers: g.numPrinters,
  };
}

/** The users of accounts/ a printing group names, and their printing settings (lent by app.ts). */
export interface PrintingPeople {
  users: OrganizationUserReader;
  printingSettings: PrintingSettingsRecords;
}

/** Reads and changes groups and printing users. */
export class GroupService {
  constructor(
    private readonly store: EmulatorStore,
    private readonly people: PrintingPeople,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** The group when it belongs to the organization, else NotFoundError. */
  require(orgId: string, id: string): GroupRecord {
    const group = this.store.groups.findById(id.toLowerCase());
    if (!group || group.organizationId !== orgId) throw new NotFoundError(`group ${id}`);
    return group;
  }

  page(orgId: string, limit: number, offset: number): { count: number; rows: GroupWire[] } {
    const { count, rows } = this.store.groups.page(orgId, limit, offset);
    return { count, rows: rows.map(groupToWire) };
  }

  /** POST: a new group; organization_id, when sent, must be the caller's. */
  create(orgId: string, body: unknown): GroupWire {
    const input = parseGroupInput(body, 'create');
    sameOrganization(orgId, input.organizationId);
    const fields: GroupFields = {
      name: input.fields.name!,
      description: input.fields.description ?? '',
      localPrintingEnabled: input.fields.localPrintingEnabled ?? false,
      myprintersEnabled: input.fields.myprintersEnabled ?? false,
      originProvider: input.fields.originProvider ?? DEFAULT_ORIGIN_PROVIDER,
    };
    const group = this.store.groups.insert(orgId, fields, this.clock.now());
    this.logger.info({ group: group.id, name: group.name }, 'group created');
    return groupToWire(group);
  }

  /** PATCH: name and description required, other fields optional. */
  update(orgId: string, id: string, body: unknown): GroupWire {
    const input = parseGroupInput(body, 'update');
    return this.store.transaction(() => {
      const current = this.require(orgId, id);
      sameOrganization(orgId, input.organizationId);
      const sent = Object.fromEntries(Object.entries(input.fields).filter(([, v]) => v !== undefined));
      const fields: GroupFields = { ...current, ...sent };
      return groupToWire(this.store.groups.update(current.id, fields));
    });
  }

  /** DELETE: the group, its memberships and its printer assignments. */
  remove(orgId: string, id: string): void {
    const group = this.require(orgId, id);
    this.store.groups.delete(group.id);
    this.logger.info({ group: group.id, name: group.name }, 'group deleted');
  }

  /** The user when it belongs to the organization, else NotFoundError. */
  requireUser(orgId: string, id: string): User {
    const user = this.people.users.findById(id.toLowerCase());
    if (!user || user.organizationId !== orgId) throw new NotFoundError(`user ${id}`);
    return user;
  }

  /** One page of the organization's users' printing settings. */
  pageUsers(orgId: string, limit: number, offset: number): { count: number; rows: PrintingUserWire[] } {
    const all = this.people.users.listByOrganization(orgId);
    return { count: all.length, rows: all.slice(offset, offset + limit).map((u) => this.userWire(u.id)) };
  }

  /** A user's printing settings. */
  user(orgId: string, id: string): PrintingUserWire {
    return this.userWire(this.requireUser(orgId, id).id);
  }

  /** PATCH: the switches sent, and groups as the full replacement of the memberships. */
  updateUser(orgId: string, id: string, body: unknown): PrintingUserWire {
    const input = parsePrintingUserInput(body);
    return this.store.transaction(() => {
      const user = this.requireUser(orgId, id);
      const groupIds = this.requireGroups(orgId, input.groups);
      this.people.printingSettings.update(user.id, input.settings);
      this.store.groups.setGroupsOfUser(user.id, groupIds);
      return this.userWire(user.id);
    });
  }

  /** The ids of the referenced groups; 400 naming each reference that is no group of the organization. */
  requireGroups(orgId: string, refs: readonly GroupRef[]): string[] {
    const errors: ValidationError[] = [];
    for (const ref of refs) {
      const group = this.store.groups.findById(ref.groupId);
      if (!group || group.organizationId !== orgId)
        errors.push(new ValidationError(ref.field, 'no such group in your organization'));
    }
    if (errors.length > 0) throw new ValidationErrors(errors);
    return [...new Set(refs.map((r) => r.groupId))];
  }

  private userWire(userId: string): PrintingUserWire {
    const s = this.people.printingSettings.settings(userId)!;
    return {
      id: userId,
      local_printing_enabled: s.localPrintingEnabled,
      self_service_enabled: s.selfServiceEnabled,
      myprinters_enabled: s.myprintersEnabled,
      pull_printing_enabled: s.pullPrintingEnabled,
      groups: this.store.groups.groupsOfUser(userId).map((groupId) => ({ group_id: groupId })),
    };
  }
}

function sameOrganization(orgId: string, sent: string | undefined): void {
  if (sent !== undefined && sent !== orgId)
    throw new ValidationError('organization_id', "must be your organization's id");
}
