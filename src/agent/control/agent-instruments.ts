/**
 * Small adapters agent.ts puts between the parts and the AgentControl: they watch what passes
 * (tokens, grants, job events, sync runs) and report it, without the parts knowing about
 * metrics. Each returns a value of the type the part already takes. Nothing to clean up.
 */
import type { TokenSource } from '../../client/http-base.js';
import type { TokenGrants } from '../../client/token-store.js';
import type { Clock } from '../../lib/clock.js';
import { errorMessage, isRetryable } from '../../lib/errors.js';
import { FINAL_EVENT_KINDS } from '../../protocol/connector-channel.js';
import type { JobLedger, LedgerJob } from '../../store/job-ledger.js';
import type { NewJobEvent } from '../../store/outbox.js';
import type { SyncReport } from '../printer-sync/printer-sync.js';
import type { AgentControl } from './agent-control.js';
import type { FinalJobState } from './agent-metrics.js';

/** Tokens that tell the control whether the last attempt to get one worked. */
export function observedTokens(
  tokens: TokenSource,
  control: Pick<AgentControl, 'tokenOutcome'>,
): TokenSource {
  return {
    token: (signal) =>
      tokens.token(signal).then(
        (token) => {
          control.tokenOutcome(undefined);
          return token;
        },
        (error: unknown) => {
          // A network failure says nothing about the token: the cloud contact reports it.
          if (!isRetryable(error)) control.tokenOutcome(errorMessage(error));
          throw error;
        },
      ),
    invalidate: (rejected) => tokens.invalidate(rejected),
  };
}

/** Grants whose refreshes (and password sign-ins) are counted, failures included. */
export function countedGrants(
  grants: TokenGrants,
  metrics: { tokenRefresh(ok: boolean): void },
): TokenGrants {
  const counted =
    <A extends unknown[], R>(grant: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        const result = await grant(...args);
        metrics.tokenRefresh(true);
        return result;
      } catch (error) {
        metrics.tokenRefresh(false);
        throw error;
      }
    };
  return {
    refresh: counted(grants.refresh),
    password: grants.password ? counted(grants.password) : undefined,
  };
}

/**
 * Watches job events on their way to the outbox: a final event counts the job with its latency
 * (from the ledger's creation time), `printing` counts the document's bytes, `failed` is kept
 * as a recent error. `printerName` maps a cloud printer id to its configured name. The job is
 * the one given with the event (the move that queued it), else read from the ledger.
 */
export function jobEventWatcher(deps: {
  ledger: Pick<JobLedger, 'get'>;
  control: Pick<AgentControl, 'metrics' | 'error'>;
  printerName: (cloudId: string) => string;
  clock: Clock;
}): (jobId: string, event: NewJobEvent, moved?: LedgerJob) => void {
  return (jobId, event, moved) => {
    if (event.kind !== 'printing' && !FINAL_EVENT_KINDS.has(event.kind)) return;
    const job = moved ?? deps.ledger.get(jobId);
    if (!job) return;
    const printer = deps.printerName(job.printerId);
    if (event.kind === 'printing') {
      deps.control.metrics.printed(job.offer.document.size);
      return;
    }
    const latencyS = (deps.clock.now() - job.createdAt) / 1000;
    deps.control.metrics.jobFinished(event.kind as FinalJobState, printer, latencyS);
    if (event.kind === 'failed') {
      deps.control.error('job', `job ${jobId} on ${printer} failed: ${event.message ?? event.error_code}`);
    }
  };
}

/** Reports a printer sync run to the metrics and, when it failed, to the recent errors. */
export function syncRunWatcher(
  control: Pick<AgentControl, 'metrics' | 'error'>,
): (outcome: { report: SyncReport } | { error: unknown }) => void {
  return (outcome) => {
    if ('error' in outcome) {
      control.metrics.syncRun(false, {}, 0);
      control.error('printer-sync', errorMessage(outcome.error));
      return;
    }
    const { writes, failed } = outcome.report;
    control.metrics.syncRun(failed.length === 0, writes, failed.length);
    for (const f of failed.slice(0, 3))
      control.error('printer-sync', `${f.kind} of printer tp_id ${f.tpId}: ${f.error}`);
  };
}
