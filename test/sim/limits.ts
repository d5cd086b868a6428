/**
 * The limits no agent can get around, as docs/agent-jobs.md states them, and how a broken
 * invariant is recognised as one of them from the world's records. A limit is counted and printed
 * apart; every other broken invariant is a violation and fails the run.
 */
import type { Violation, WorldRecord } from './invariants.js';

export interface Limit {
  /** Short name, as docs/agent-jobs.md ("Simulation") lists it. */
  id: string;
  /** What happened in this run. */
  note: string;
}

/** The documented limit that explains `v`, if one does. */
export function explainLimit(v: Violation, world: WorldRecord): Limit | undefined {
  const job = world.cloud.jobs.get(v.jobId);
  if (!job) return undefined;
  const printer = world.printers.find((p) => p.plan.id === job.plan.printerId);
  if (!printer) return undefined;
  const kOctets = (bytes: number) => Math.ceil(bytes / 1024);
  const cutInLastK = printer.prints.some(
    (p) =>
      p.jobName === `printrelay-${v.jobId}` &&
      p.bytes.length < job.document.length &&
      kOctets(p.bytes.length) === kOctets(job.document.length),
  );
  if (v.rule === 'completed-not-printed' && printer.plan.reportsKOctets && cutInLastK) {
    return {
      id: 'limit-k-octets',
      note: 'the document was cut within its last K octet; the printer reports as many K octets as the whole',
    };
  }
  if (v.rule === 'printed-twice' && !printer.plan.reportsKOctets) {
    return {
      id: 'limit-cannot-tell',
      note: 'a printer that reports no K octets completed the whole document but its answer was lost; the agent, unable to tell it from a cut one, sent it again',
    };
  }
  const forgets = printer.plan.restarts.some((r) => r.forget);
  if (v.rule === 'printed-twice' && !printer.plan.createJob && forgets) {
    return {
      id: 'limit-forgetting-printer',
      note: 'a printer without Create-Job forgot the printed job in a restart while its answer was lost; the agent, finding no job by that name, sent it again',
    };
  }
  return undefined;
}
