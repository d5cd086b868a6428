/**
 * What a JobRunner and its steps share: their dependencies, the per-job controls, the error code
 * for a job that must be restarted and the printer job name of a cloud job.
 */
import type { AgentConfig } from '../../config/agent-schema.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../log/logger.js';
import type { JobOffer } from '../../protocol/connector-channel.js';
import type { JobLedger, LedgerJob } from '../../store/job-ledger.js';
import type { NewJobEvent } from '../../store/outbox.js';
import type { InlineDocuments } from './inline-documents.js';
import type { ApplyTicketOverrides } from './ticket-overrides.js';

/** Error code for "the job must be restarted" (spec: job status 3011). */
export const RESTART_JOB_CODE = 3011;

/** The printer job name of a cloud job. */
export function printerJobName(jobId: string): string {
  return `printrelay-${jobId}`;
}

/** What a runner needs; all owned by the caller. */
export interface JobRunnerDeps {
  ledger: JobLedger;
  /** Queues a job event; `job`, when given, is the job as the move with it left it (no read). */
  emit: (jobId: string, event: NewJobEvent, job?: LedgerJob) => void;
  /**
   * Downloads the document, claiming the job (ClaimRefusedError when the cloud refuses the claim):
   * resolves with its bytes (a Buffer, SHA-256 checked) when it fetched them into memory and wrote
   * no file (a small document, held-documents.ts), else with anything else once it is in `target`.
   * Called again for a document a restart lost (the job is this connector's already).
   */
  download: (offer: JobOffer, target: string, signal: AbortSignal) => Promise<unknown>;
  /**
   * Writes a document held in memory to its spool file (when there is no room to keep it, or the
   * backend needs a file); default writeSpoolFile (client/channel-client.ts).
   */
  writeSpool?: (target: string, bytes: Buffer) => Promise<void>;
  /** The most small documents held in memory together; default HELD_DOCUMENTS_BYTES. */
  heldDocumentsBytes?: number;
  /**
   * Documents that came with their offer (inline-documents.ts), until the download claims the job
   * and takes one; the runner drops one left by a job that ended.
   */
  inline?: Pick<InlineDocuments, 'has' | 'take'>;
  /** Removes the undelivered events of a job (one the cloud refused us); returns how many. */
  discardEvents?: (jobId: string) => number;
  /** Applies the admin's capability overrides (tray names, disabled trays, papers) to a ticket. */
  adjustTicket?: ApplyTicketOverrides;
  jobs: AgentConfig['jobs'];
  spoolDir: string;
  clock: Clock;
  logger: Logger;
  random?: () => number;
}

/**
 * Per-job controls: `stop` aborts when the agent stops (the job stays resumable); `wake` aborts
 * on stop or on a cancel request, ending waits and downloads early; `cancelled` says whether the
 * job was cancelled; `previousJobEnded`, where given, resolves once one of this connector's jobs
 * still at the same printer (being watched) ends, and is undefined while none is: a job the
 * printer refused busy waits for that instead of asking again and again.
 */
export interface JobControl {
  stop: AbortSignal;
  wake: AbortSignal;
  cancelled: () => boolean;
  previousJobEnded?: () => Promise<void> | undefined;
}
