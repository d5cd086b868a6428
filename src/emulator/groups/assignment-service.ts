/**
 * AssignmentService: which groups each printer is assigned to (admin spec Assignment) and the
 * rule built on it: "a user can use every printer assigned to any group the user belongs to".
 * Where the spec is silent, a printer assigned to no group is usable by every user of its
 * organization; admins use every printer; a caller without a user (client_credentials) is in no
 * group, so it sees the unassigned printers only. Scoped to the caller's organization (another
 * organization's printer is not found). No resources to clean up.
 */
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../log/logger.js';
import type { AssignmentWire } from '../../protocol/printing-groups.js';
import type { AuthContext } from '../accounts/auth-context.js';
import type { EmulatorStore } from '../emulator-store.js';
import type { PrinterAccessReader, PrinterRecord } from '../printers/printers-face.js';
import type { AssignedGroup } from './assignment-repo.js';
import { parseAssignmentChange } from './group-rules.js';
import type { GroupService } from './group-service.js';
import type { PrinterService } from '../printers/printer-service.js';

/** Whose printers a caller may use: undefined for every printer (admins), else a user (or null). */
export type PrinterRestriction = { userId: string | null } | undefined;

/** Reads and changes assignments; answers the access rule. */
export class AssignmentService {
  constructor(
    private readonly store: EmulatorStore,
    private readonly access: PrinterAccessReader,
    private readonly printers: PrinterService,
    private readonly groups: GroupService,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** The assignment element of one printer of the organization. */
  get(orgId: string, printerId: string): AssignmentWire {
    return this.wire(this.printers.require(orgId, printerId));
  }

  /** One page of the printers that have an assignment, optionally of one group: three queries whatever its size. */
  page(
    orgId: string,
    query: { groupId?: string; limit: number; offset: number },
  ): { count: number; rows: AssignmentWire[] } {
    const { count, printers } = this.access.pageAssigned(orgId, query);
    const groups = this.store.assignments.groupsOfPrinters(printers.map((p) => p.id));
    return { count, rows: printers.map((p) => toWire(p, groups.get(p.id) ?? [])) };
  }

  /** PATCH: assigns the printer to the listed groups (keeping its other groups). */
  add(orgId: string, printerId: string, body: unknown): AssignmentWire {
    const refs = parseAssignmentChange(body);
    return this.store.transaction(() => {
      const printer = this.printers.require(orgId, printerId);
      this.groups.requireGroups(orgId, refs);
      for (const ref of refs)
        this.store.assignments.add(printer.id, ref.groupId, ref.forceChosen, this.clock.now());
      this.logger.info({ printer: printer.name, groups: refs.length }, 'printer assigned to groups');
      return this.wire(printer);
    });
  }

  /** DELETE: removes the printer from the listed groups (a group it is not in is no error). */
  remove(orgId: string, printerId: string, body: unknown): void {
    const refs = parseAssignmentChange(body);
    this.store.transaction(() => {
      const printer = this.printers.require(orgId, printerId);
      this.groups.requireGroups(orgId, refs);
      for (const ref of refs) this.store.assignments.remove(printer.id, ref.groupId);
    });
  }

  /** Which printers the caller may use: every printer for an admin, else per the access rule. */
  restriction(auth: AuthContext): PrinterRestriction {
    if (auth.roles.includes('admin')) return undefined;
    return { userId: auth.kind === 'user' ? auth.userId : null };
  }

  /** True when the caller may see and print to the printer. */
  canUse(auth: AuthContext, printer: PrinterRecord): boolean {
    const restriction = this.restriction(auth);
    return restriction === undefined || this.access.usableBy(printer.id, restriction.userId);
  }

  /** The printers of `list` the caller may use, in the same order. */
  usable(auth: AuthContext, list: readonly PrinterRecord[]): PrinterRecord[] {
    const restriction = this.restriction(auth);
    if (restriction === undefined) return [...list];
    const allowed = this.access.usableIds(auth.organizationId, restriction.userId);
    return list.filter((p) => allowed.has(p.id));
  }

  private wire(printer: PrinterRecord): AssignmentWire {
    return toWire(printer, this.store.assignments.groupsOfPrinter(printer.id));
  }
}

/** The assignment element of a printer assigned to `assigned` (in assignment order). */
function toWire(printer: { id: string; name: string }, assigned: readonly AssignedGroup[]): AssignmentWire {
  const groups = assigned.map((g) => ({
    group_id: g.groupId,
    group_name: g.groupName,
    group_foreign_id: null,
    force_chosen: g.forceChosen,
  }));
  return {
    printer_id: printer.id,
    printer_name: printer.name,
    assignments: groups.length === 0 ? [] : [{ settings: null, groups }],
  };
}
