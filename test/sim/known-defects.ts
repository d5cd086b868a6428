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
