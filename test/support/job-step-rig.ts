/**
 * What the unit tests of the job path's steps share: an in-memory agent database with its job
 * ledger and outbox, the JobRunnerDeps a runner or a step takes (every event recorded, log lines
 * captured at the level asked, a spool folder), and a printer fake that records what each
 * submission carried (the hardware boundary of these tests). The tests differ in the log level,
 * the spool folder, the clock and the jobs settings: options. close() closes the database and
 * removes the spool folder the rig made.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobLoop, type JobLoopDeps } from '../../src/agent/jobs/job-loop.js';
import type { JobRunner } from '../../src/agent/jobs/job-runner.js';
import type { JobRunnerDeps } from '../../src/agent/jobs/job-runner-types.js';
import type { AgentConfig } from '../../src/config/agent-schema.js';
import { type Clock, ManualClock } from '../../src/lib/clock.js';
import { createLogger, type Logger } from '../../src/log/logger.js';
import type {
  BackendJob,
  BackendJobState,
  PrinterBackend,
  SubmittedJob,
} from '../../src/printing/printer-backend.js';
import { type AgentDatabase, openAgentDatabase } from '../../src/store/agent-db.js';
import { JobLedger } from '../../src/store/job-ledger.js';
import { type NewJobEvent, Outbox } from '../../src/store/outbox.js';
import { FakePrinter } from './fake-printer.js';

export interface JobStepRigOptions {
  /** Level of the captured log (pino level name); default 'info'. */
  logLevel?: string;
  /** The spool folder; default a private temporary folder, removed by close(). */
  spoolDir?: string;
  /** The clock of the ledger, the outbox and the deps; default a ManualClock. */
  clock?: Clock;
  /** Settings of `jobs:` that differ from the rig's (short waits, 3 download attempts). */
  jobs?: Partial<AgentConfig['jobs']>;
}

/** The rig's jobs settings: waits of milliseconds, so a test that retries stays fast. */
export const RIG_JOBS: AgentConfig['jobs'] = {
  retry_initial_ms: 5,
  retry_max_ms: 20,
  give_up_after_s: 60,
  download_attempts: 3,
  status_poll_ms: 10,
};

export class JobStepRig {
  readonly db: AgentDatabase;
  readonly clock: Clock;
  readonly ledger: JobLedger;
  readonly outbox: Outbox;
  readonly jobs: AgentConfig['jobs'];
  readonly spoolDir: string;
  /** Every event the steps emitted, of every job, in order (each also added to the outbox). */
  readonly events: NewJobEvent[] = [];
  /** The captured log lines, parsed. */
  readonly lines: Record<string, unknown>[] = [];
  readonly log: Logger;
  private readonly ownSpool: boolean;

  constructor(options: JobStepRigOptions = {}) {
    this.db = openAgentDatabase(':memory:');
    this.clock = options.clock ?? new ManualClock();
    this.ledger = new JobLedger(this.db, this.clock);
    this.outbox = new Outbox(this.db, this.clock, { initialMs: 10, maxMs: 100, factor: 2, jitter: 0 });
    this.jobs = { ...RIG_JOBS, ...options.jobs };
    this.ownSpool = options.spoolDir === undefined;
    this.spoolDir = options.spoolDir ?? mkdtempSync(join(tmpdir(), 'job-step-'));
    this.log = createLogger({
      level: options.logLevel ?? 'info',
      destination: {
        write: (line: string) => void this.lines.push(JSON.parse(line) as Record<string, unknown>),
      },
    });
  }

  /** The deps of a runner or a step: the rig's, with `extra` laid over them. */
  deps(extra: Partial<JobRunnerDeps> = {}): JobRunnerDeps {
    return {
      ledger: this.ledger,
      emit: (jobId, event) => {
        this.events.push(event);
        this.outbox.add(jobId, event);
      },
      download: async () => undefined,
      jobs: this.jobs,
      spoolDir: this.spoolDir,
      clock: this.clock,
      logger: this.log,
      ...extra,
    };
  }

  /**
   * A job loop (not started) over the rig's ledger, events, spool folder and log, running jobs with
   * `runner` on the printers `backendFor` serves; `extra` laid over those deps.
   */
  loop(
    runner: JobRunner,
    backendFor: (printerId: string) => PrinterBackend | undefined,
    extra: Partial<JobLoopDeps> = {},
  ): JobLoop {
    return new JobLoop({
      ledger: this.ledger,
      runner,
      emit: this.deps().emit,
      backendFor,
      spoolDir: this.spoolDir,
      logger: this.log,
      ...extra,
    });
  }

  /** The kinds of a job's undelivered events, in order. */
  kinds(jobId: string): string[] {
    return this.outbox.pendingFor(jobId).map((pending) => pending.event.kind);
  }

  /** The captured log lines with this message. */
  logged(msg: string): Record<string, unknown>[] {
    return this.lines.filter((line) => line['msg'] === msg);
  }

  close(): void {
    this.db.close();
    if (this.ownSpool) rmSync(this.spoolDir, { recursive: true, force: true });
  }
}

/** A submission as the recording printer saw it. */
export interface Submission {
  job: BackendJob;
  /** The bytes given with the job (a document held in memory). */
  bytes: Buffer | undefined;
  /** The spool file's bytes, if the file existed when the job came. */
  file: Buffer | undefined;
}

export interface RecordingPrinterOptions {
  /** The backend sends a document given as bytes (else it needs the spool file); default true. */
  sendsDocumentBytes?: boolean;
  /** The backend reports the flush and its answer to the document (an IPP printer); default true. */
  reportsDocumentSent?: boolean;
  /** The state a printer job takes when it is submitted; default completed. */
  endState?: BackendJobState;
}

/**
 * A printer that takes every submission: it records what the job carried, holds a printer job
 * of the job's name in `endState` (ids 1, 2, ...) and, when it reports the document, says the
 * document was flushed then answered.
 */
export class RecordingPrinter extends FakePrinter {
  readonly uri = 'fake://recording';
  readonly sendsDocumentBytes: boolean;
  reportsDocumentSent: boolean;
  endState: BackendJobState;
  readonly submissions: Submission[] = [];

  constructor(options: RecordingPrinterOptions = {}) {
    super();
    this.sendsDocumentBytes = options.sendsDocumentBytes ?? true;
    this.reportsDocumentSent = options.reportsDocumentSent ?? true;
    this.endState = options.endState ?? { state: 'completed', reasons: [] };
  }

  /** The jobs submitted, in order. */
  get submitted(): BackendJob[] {
    return this.submissions.map((submission) => submission.job);
  }

  async submit(job: BackendJob): Promise<SubmittedJob> {
    const file = existsSync(job.documentPath) ? readFileSync(job.documentPath) : undefined;
    this.submissions.push({ job, bytes: job.documentBytes, file });
    const printerJobId = this.hold(job.jobName, { ...this.endState });
    if (this.reportsDocumentSent) {
      job.onDocumentFlushed?.();
      job.onDocumentSent?.();
    }
    return { printerJobId };
  }
}

/** Resolves once `holds` is true, checking after each turn of the event loop. */
export function eachTurnUntil(holds: () => boolean): Promise<void> {
  return new Promise<void>((resolve) => {
    const check = () => (holds() ? resolve() : setImmediate(check));
    check();
  });
}
