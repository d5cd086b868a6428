/**
 * The fault switchboard: the rules in force (in memory; a restart starts with the `--faults`
 * file's rules again), numbered f1, f2, ... in creation order. `take` finds the first rule of
 * the asked kinds whose scope matches a request and counts one use of it: a rule with `times`
 * is removed after its last use, one with `duration_s` once the emulator's clock (the test
 * clock) passes its end. Rules an organization admin adds are that organization's: they match
 * only its requests and only its admins list or remove them. Listeners hear of every change
 * (the console's live view).
 */
import type { Clock } from '../../../lib/clock.js';
import type { FaultAction, FaultKind, FaultRuleDraft, FaultScope } from './fault-rule.js';

/** A rule in force. */
export interface FaultRule {
  id: string;
  scope: FaultScope;
  action: FaultAction;
  /** Uses left (undefined: unlimited). */
  remaining?: number;
  /** When it ends on the emulator's clock (ms since the epoch), if it has a duration. */
  endsAt?: number;
  /** How often it has applied. */
  hits: number;
  createdAt: number;
  /** The organization of the admin who added it; undefined: the local developer (every organization). */
  organizationId?: string;
}

/** What is known of a request when rules are matched; functions are asked only when needed. */
export interface FaultTarget {
  operation?: string;
  /** The connector the request names (X-Host-Id), if any. */
  connector?: string;
  /** The webhook endpoint a delivery goes to. */
  endpoint?: string;
  /** Whether `printerId` appears in the request (path, query, top-level body). */
  mentions(printerId: string): boolean;
  /** The caller of the bearer token, if any (resolved at most once). */
  caller(): Promise<FaultCaller | undefined>;
}

/** The caller a bearer token stands for. */
export interface FaultCaller {
  organizationId: string;
  userId?: string;
  userEmail?: string;
  clientId?: string;
}

/** Rules in force, their matching and their use counts; nothing to close. */
export class FaultSwitchboard {
  private rules: FaultRule[] = [];
  private next = 1;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly clock: Clock) {}

  /** Adds a rule; `organizationId` limits it to that organization. */
  add(draft: FaultRuleDraft, organizationId?: string): FaultRule {
    const now = this.clock.now();
    const rule: FaultRule = {
      id: `f${this.next++}`,
      scope: draft.scope,
      action: draft.action,
      hits: 0,
      createdAt: now,
    };
    if (draft.times !== undefined) rule.remaining = draft.times;
    if (draft.durationS !== undefined) rule.endsAt = now + draft.durationS * 1000;
    if (organizationId !== undefined) rule.organizationId = organizationId;
    this.rules.push(rule);
    this.changed();
    return rule;
  }

  /** The rules in force a reader may see (all for the local developer). */
  list(organizationId?: string): FaultRule[] {
    this.expire();
    return this.rules.filter((r) => visibleTo(r, organizationId)).map((r) => ({ ...r }));
  }

  /** Removes one rule; false when the reader has no such rule. */
  remove(id: string, organizationId?: string): boolean {
    const before = this.rules.length;
    this.rules = this.rules.filter((r) => !(r.id === id.toLowerCase() && visibleTo(r, organizationId)));
    if (this.rules.length === before) return false;
    this.changed();
    return true;
  }

  /** Removes every rule the reader may see; how many. */
  clear(organizationId?: string): number {
    const before = this.rules.length;
    this.rules = this.rules.filter((r) => !visibleTo(r, organizationId));
    if (this.rules.length !== before) this.changed();
    return before - this.rules.length;
  }

  /** Whether any rule of these kinds is in force (a cheap test before resolving a target). */
  has(kinds: readonly FaultKind[]): boolean {
    return this.rules.some((r) => kinds.includes(r.action.kind));
  }

  /** The first rule of `kinds` matching `target`, with one use counted; undefined if none. */
  async take(kinds: readonly FaultKind[], target: FaultTarget): Promise<FaultRule | undefined> {
    this.expire();
    for (const rule of this.rules) {
      if (!kinds.includes(rule.action.kind) || !(await matches(rule, target))) continue;
      // The rule may have been used up or removed while the caller was resolved.
      if (!this.rules.includes(rule)) continue;
      rule.hits += 1;
      if (rule.remaining !== undefined) rule.remaining -= 1;
      if (rule.remaining === 0) this.rules = this.rules.filter((r) => r !== rule);
      this.changed();
      return { ...rule };
    }
    return undefined;
  }

  /** The printer_state rule in force for a printer (no use is counted), or undefined. */
  printerState(printerId: string): FaultRule | undefined {
    this.expire();
    const id = printerId.toLowerCase();
    return this.rules.find((r) => r.action.kind === 'printer_state' && r.scope.printer?.toLowerCase() === id);
  }

  /** Calls `listener` after every change; returns the function that stops it. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private expire(): void {
    const now = this.clock.now();
    const kept = this.rules.filter((r) => r.endsAt === undefined || r.endsAt > now);
    if (kept.length === this.rules.length) return;
    this.rules = kept;
    this.changed();
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

function visibleTo(rule: FaultRule, organizationId: string | undefined): boolean {
  return organizationId === undefined || rule.organizationId === organizationId;
}

async function matches(rule: FaultRule, target: FaultTarget): Promise<boolean> {
  const { scope } = rule;
  if (scope.operation !== undefined && scope.operation.toLowerCase() !== target.operation?.toLowerCase())
    return false;
  if (scope.printer !== undefined && !target.mentions(scope.printer)) return false;
  if (scope.connector !== undefined && scope.connector.toLowerCase() !== target.connector?.toLowerCase())
    return false;
  if (scope.endpoint !== undefined && scope.endpoint.toLowerCase() !== target.endpoint?.toLowerCase())
    return false;
  if (scope.user === undefined && scope.client === undefined && rule.organizationId === undefined)
    return true;
  const caller = await target.caller();
  if (!caller) return false;
  if (rule.organizationId !== undefined && caller.organizationId !== rule.organizationId) return false;
  const user = scope.user?.toLowerCase();
  if (user !== undefined && user !== caller.userId && user !== caller.userEmail?.toLowerCase()) return false;
  return scope.client === undefined || scope.client === caller.clientId;
}
