/**
 * What to send next for one recorded copy job, from what the cloud has acknowledged and the
 * operations still queued. Pure. The rules, after the spec's local-job state table:
 * - not yet created, session over: one CreateLocalJob with the final Status (single-request
 *   tracking), so a record kept through a long outage never lands as a Pending job;
 * - not yet created, session running: CreateLocalJob (Pending) with everything known so far;
 * - created and Pending at the cloud within its 24 h window: one UpdateLocalJob with only the
 *   parameters that differ from what the cloud has, plus the final Status when the session ended;
 * - created, but the cloud's window has passed (it closed the job and ignores updates): once the
 *   session is over, the pages the cloud has not seen go as a second, single-request job
 *   (`continued`); nothing is counted twice and nothing is lost.
 */
import type { LocalJobFields } from '../../protocol/tpfm-local-job.js';
import type { FinalStatus, LocalJobOp, LocalJobRecord, TrackingMode } from '../../store/local-job-store.js';

/** A Pending local job closes at the cloud after this long without an update (spec). */
export const PENDING_WINDOW_MS = 24 * 60 * 60 * 1000;
/** The agent treats the window as over this much earlier: the two clocks are not the same. */
export const WINDOW_MARGIN_MS = 10 * 60 * 1000;

/** Counting parameters: a continuation job carries only what the first one lacks. */
const COUNT_FIELDS = [
  'PrintedPages',
  'PrintedSheets',
  'PrintedColorPages',
  'TotalPrintedPages',
  'TotalPrintedSheets',
  'TotalPrintedColorPages',
] as const satisfies readonly (keyof LocalJobFields)[];

/** The next request for a record. `consumes`: how many queued operations it covers. */
export type LocalJobPlan =
  | {
      kind: 'create' | 'update';
      params: LocalJobFields;
      status?: FinalStatus;
      tracking: TrackingMode;
      /** The record's parameters the cloud holds once this is acknowledged. */
      delivered: LocalJobFields;
      consumes: number;
    }
  | { kind: 'none'; consumes: number }
  | { kind: 'wait'; reason: string };

/** What the planner reads of a record. */
export type PlanRecord = Pick<LocalJobRecord, 'cloudJobId' | 'delivered' | 'deliveredStatus' | 'deliveredAt'>;

/** See the file comment. */
export function planDelivery(record: PlanRecord, ops: readonly LocalJobOp[], now: number): LocalJobPlan {
  const consumes = ops.length;
  const current: LocalJobFields = { ...record.delivered };
  for (const op of ops) Object.assign(current, op.fields);
  const final = ops.find((op) => op.op === 'finish')?.status;
  if (!record.cloudJobId) {
    return final
      ? { kind: 'create', params: current, status: final, tracking: 'single', delivered: current, consumes }
      : { kind: 'create', params: current, tracking: 'pending', delivered: current, consumes };
  }
  if (record.deliveredStatus && record.deliveredStatus !== 'Pending') return { kind: 'none', consumes };
  if (!windowPassed(record.deliveredAt, now)) {
    const params = changedFields(record.delivered, current);
    if (Object.keys(params).length === 0 && !final) return { kind: 'none', consumes };
    return {
      kind: 'update',
      params,
      ...(final ? { status: final } : {}),
      tracking: 'pending',
      delivered: current,
      consumes,
    };
  }
  if (!final)
    return { kind: 'wait', reason: 'the cloud closed the Pending job; waiting for the session to end' };
  const rest = remainder(record.delivered, current);
  if (!rest) return { kind: 'none', consumes };
  return { kind: 'create', params: rest, status: final, tracking: 'continued', delivered: current, consumes };
}

/** Whether the cloud's 24 h window (less the margin) has passed since the last acknowledged request. */
export function windowPassed(deliveredAt: number | undefined, now: number): boolean {
  return deliveredAt === undefined || now - deliveredAt >= PENDING_WINDOW_MS - WINDOW_MARGIN_MS;
}

/** The parameters of `next` that differ from `prev` (UpdateLocalJob sends only those). */
export function changedFields(prev: LocalJobFields, next: LocalJobFields): LocalJobFields {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(next)) {
    if (value !== undefined && prev[key as keyof LocalJobFields] !== value) out[key] = value;
  }
  return out as LocalJobFields;
}

/**
 * The parameters of a continuation job: the counts the cloud has not seen, the other parameters
 * as they are now; undefined when no count grew (the closed job already holds every page).
 */
function remainder(delivered: LocalJobFields, current: LocalJobFields): LocalJobFields | undefined {
  const out: Record<string, unknown> = { ...current };
  let grew = false;
  for (const key of COUNT_FIELDS) {
    const now = current[key];
    if (now === undefined) continue;
    const diff = Math.max(0, now - (delivered[key] ?? 0));
    out[key] = diff;
    if (diff > 0) grew = true;
  }
  // Colour pages of the rest cannot outnumber its pages (the protocol's rule).
  clampTo(out, 'PrintedColorPages', 'PrintedPages');
  clampTo(out, 'TotalPrintedColorPages', 'TotalPrintedPages');
  return grew ? (out as LocalJobFields) : undefined;
}

function clampTo(fields: Record<string, unknown>, part: string, whole: string): void {
  const [p, w] = [fields[part], fields[whole]];
  if (typeof p === 'number' && typeof w === 'number' && p > w) fields[part] = w;
}
