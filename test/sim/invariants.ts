/**
 * What must hold after a run has drained, whatever the faults: each job printed exactly once and
 * whole (as the printers recorded it) and reported completed, or failed with a reason; no job
 * left unfinished at the cloud or in the ledger; each job's events at the cloud complete (seq
 * 1..n, nothing missing), never two different events for one seq, exactly one final event and
 * it is the last; the outbox empty; the ledger's final state the cloud's, its printer job the
 * one that printed; no job failed for a document the agent lost (a small one held in memory is
 * fetched again after a crash) or for one the cloud still had; one life of the agent never has a
 * job's events in two requests at once (protocol 4's claim with events). A broken invariant that a documented limit explains says so (limits.ts).
 */
import type { JobLedger } from '../../src/store/job-ledger.js';
import type { Outbox } from '../../src/store/outbox.js';
import { explainLimit, type Limit } from './limits.js';
import type { SimCloud } from './sim-cloud.js';
import type { SimPrinter } from './sim-printer.js';

const FINAL = new Set(['completed', 'failed', 'cancelled']);

export interface Violation {
  jobId: string;
  /** Short name of the broken rule. */
  rule: string;
  detail: string;
  /** The documented limit that explains it, if any (then it is not counted as a violation). */
  limit?: Limit;
}

export interface WorldRecord {
  cloud: SimCloud;
  printers: readonly SimPrinter[];
  ledger: JobLedger;
  outbox: Outbox;
}

/** The broken invariants (empty: the run kept every promise). */
export function checkInvariants(world: WorldRecord): Violation[] {
  const { cloud, printers, ledger, outbox } = world;
  const violations: Violation[] = [];
  const prints = printers.flatMap((p) => p.prints);
  for (const [jobId, job] of cloud.jobs) {
    const say = (rule: string, detail: string) => violations.push({ jobId, rule, detail });
    const mine = prints.filter((p) => p.jobName === `printrelay-${jobId}`);
    const whole = mine.filter((p) => p.bytes.equals(job.document));
    const partial = mine.length - whole.length;
    const row = ledger.get(jobId);
    if (!FINAL.has(job.state))
      say('unfinished', `not finished at the cloud (${job.state}; ledger ${row?.state ?? 'none'})`);
    if (!row) say('unrecorded', 'not in the ledger');
    else if (!FINAL.has(row.state)) say('stuck', `stuck in the ledger as ${row.state}`);
    else if (FINAL.has(job.state) && row.state !== job.state)
      say('ledger-disagrees', `ledger says ${row.state}, the cloud ${job.state}`);
    if (whole.length > 1) say('printed-twice', `printed whole ${whole.length} times`);
    if (job.state === 'completed') {
      if (whole.length === 0)
        say(
          'completed-not-printed',
          `reported completed but never printed whole (${partial} partial prints)`,
        );
      else if (
        row?.printerJobId !== undefined &&
        !whole.some((p) => String(p.printerJobId) === row.printerJobId)
      )
        say(
          'wrong-printer-job',
          `ledger names printer job ${row.printerJobId}, which did not print it whole`,
        );
    }
    if (job.state === 'failed' && !job.message) say('failed-without-reason', 'failed without a reason');
    // A document the agent had whole is never lost by the agent: held in memory, spooled, or
    // fetched again; a job fails for a missing document only when the cloud no longer had it.
    if (job.state === 'failed' && job.message?.includes('no spool file'))
      say('document-lost', `failed for a document the agent lost: ${job.message}`);
    if (
      job.state === 'failed' &&
      job.message?.includes('no longer has the document') &&
      job.goneAnswers === 0
    )
      say('failed-document-there', `failed for a missing document the cloud still had: ${job.message}`);
    // The claim rules (docs/agent-jobs.md, *Claiming without a claim request*): the cloud hears of
    // a claim only for a job the ledger holds, and a job reaches a printer only once claimed.
    if (job.claimedUnrecorded) say('claim-unrecorded', 'the cloud heard a claim the ledger did not hold');
    if (job.unclaimedAtPrinter)
      say('printed-unclaimed', 'a printer had the job before the cloud had it claimed');
    // Protocol 4: a job's events ride on its claim or in a batch, never both at once.
    if (job.eventsInTwoRequests)
      say('events-in-two-requests', "the job's events were in two requests at once");
    // A document that cannot be fetched again never holds its printer's line (sim-line.ts).
    if (job.lineHeld > 0)
      say('line-held', `its printer's line waited out ${job.lineHeld} failed fetches of its document`);
    // A job waiting for its document is fetched again only at the next try its row recorded, also
    // by a restarted agent (sim-line.ts).
    if (job.fetchedEarly > 0)
      say(
        'refetch-early',
        `its document was fetched again ${job.fetchedEarly} times before its recorded next try`,
      );
    if (job.state === 'cancelled') say('cancelled-unasked', 'cancelled although nobody cancelled it');
    eventViolations([...job.events.values()], say);
  }
  const left = outbox.size();
  if (left > 0)
    violations.push({ jobId: '-', rule: 'outbox-not-empty', detail: `outbox still holds ${left} events` });
  return violations.map((v) => {
    const limit = explainLimit(v, world);
    return limit ? { ...v, limit } : v;
  });
}

function eventViolations(
  events: { seq: number; kind: string }[],
  say: (rule: string, detail: string) => void,
): void {
  const bySeq = new Map<number, number>();
  for (const e of events) bySeq.set(e.seq, (bySeq.get(e.seq) ?? 0) + 1);
  const max = Math.max(0, ...bySeq.keys());
  for (let seq = 1; seq <= max; seq++) {
    const n = bySeq.get(seq) ?? 0;
    if (n === 0) say('event-lost', `event seq ${seq} never reached the cloud`);
    if (n > 1) say('event-doubled', `${n} different events with seq ${seq}`);
  }
  const finals = events.filter((e) => FINAL.has(e.kind));
  if (events.length > 0 && finals.length !== 1) say('final-events', `${finals.length} final events`);
  const last = finals[0];
  if (finals.length === 1 && last && last.seq !== max) say('after-final', 'events after the final one');
}

/** One line for a violation, as the test prints it. */
export function describeViolation(v: Violation): string {
  const limit = v.limit ? ` [limit: ${v.limit.id}, ${v.limit.note}]` : '';
  return `${v.jobId}: ${v.rule}: ${v.detail}${limit}`;
}
