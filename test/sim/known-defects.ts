/**
 * Defects of the job path that are known and being fixed elsewhere (and one limit no agent can
 * get around), and how a violation is recognised as one of them from the world's records. The default run passes when every
 * violation it finds is explained here (the summary line still counts them); SIM_STRICT=1 makes
 * every violation fail, for when the fixes have landed.
 */
import type { Violation, WorldRecord } from './invariants.js';

export interface KnownDefect {
  /** Short name, as the issue lists it. */
  id: string;
  /** The mechanism seen in this run. */
  note: string;
}

/**
 * A job of the printer left `submitting` whose printer job of its current attempt (recorded, or
 * found by its name) still waits for its document: the reconcile would cancel it, had it its turn.
 */
function blockedRepair(
  printerId: string,
  world: WorldRecord,
): { jobId: string; printerJobId: string } | undefined {
  const printer = world.printers.find((p) => p.plan.id === printerId);
  for (const job of world.cloud.jobs.values()) {
    if (job.plan.printerId !== printerId) continue;
    const row = world.ledger.get(job.plan.jobId);
    if (row?.state !== 'submitting' || !printer) continue;
    const id = row.printerJobId ?? printer.findByName(`printrelay-${row.jobId}`);
    const ownAttempt = id !== undefined && printer.records.get(Number(id))?.attempt === row.attempts;
    if (ownAttempt && printer.waitsForDocument(Number(id)))
      return { jobId: row.jobId, printerJobId: String(id) };
  }
  return undefined;
}

/** The known defect that explains `v`, if one does. */
export function diagnose(v: Violation, world: WorldRecord): { known?: KnownDefect } {
  const job = world.cloud.jobs.get(v.jobId);
  const row = world.ledger.get(v.jobId);
  if (!job || !row) return {};
  const printer = world.printers.find((p) => p.plan.id === job.plan.printerId);
  const adopted =
    printer && row.printerJobId !== undefined ? printer.records.get(Number(row.printerJobId)) : undefined;
  const wrongOutcome = v.rule === 'cancelled-unasked' || v.rule === 'completed-not-printed';
  if (wrongOutcome && adopted && adopted.attempt < row.attempts) {
    return {
      known: {
        id: 'defect-3',
        note: `submit attempt ${row.attempts} was interrupted before its Create-Job answered; the reconcile found by name printer job ${row.printerJobId} of attempt ${adopted.attempt}${adopted.cancelledByAgent ? ', which the agent had cancelled,' : ''} and adopted it`,
      },
    };
  }
  if (v.rule === 'cancelled-unasked' && adopted?.cancelledByAgent) {
    return {
      known: {
        id: 'defect-3',
        note: `the agent cancelled printer job ${row.printerJobId} (its Cancel-Job arrived; the answer was lost or the agent crashed first), then found it by name and adopted it`,
      },
    };
  }
  if (v.rule === 'completed-not-printed' && printer && !printer.plan.createJob) {
    return {
      known: {
        id: 'defect-4',
        note: 'a Print-Job cut short was found by name after the interruption, watched and reported printed',
      },
    };
  }
  const unfinished = v.rule === 'stuck' || v.rule === 'unfinished' || v.rule === 'final-events';
  const blocker = unfinished && printer ? blockedRepair(job.plan.printerId, world) : undefined;
  if (blocker) {
    return {
      known: {
        id: 'defect-2',
        note: `${blocker.jobId} waits in the serial submit chain to be repaired (its printer job ${blocker.printerJobId} holds the printer, waiting for a document) behind jobs that retry the printer it keeps busy`,
      },
    };
  }
  const forgets = printer?.plan.restarts.some((r) => r.forget) ?? false;
  if (v.rule === 'printed-twice' && printer && !printer.plan.createJob && forgets) {
    return {
      known: {
        id: 'limit-forgetting-printer',
        note: 'a printer without Create-Job forgot the printed job in a restart while its answer was lost; the agent, finding no job by that name, sent it again',
      },
    };
  }
  return {};
}
