/**
 * LocalJobService: copy jobs that devices record with CreateLocalJob and UpdateLocalJob, after
 * the spec's local-job state table. Pending jobs take changed parameters; Succeeded and Failed
 * are final; a Pending job without an update for 24 hours (measured with the injected clock) is
 * closed. Updates to a final, closed, foreign or unknown job change nothing and are answered
 * with code 13. A job reaching Succeeded or Failed is told, once, to the outcome listener (the
 * webhook publisher) inside the transaction that stores it. No resources to clean up.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../../lib/clock.js';
import type { Logger } from '../../../log/logger.js';
import type {
  CreateLocalJobParams,
  LocalJobFields,
  UpdateLocalJobParams,
} from '../../../protocol/tpfm-local-job.js';
import type { EmulatorStore } from '../../emulator-store.js';
import { type LocalJobRecord, LocalJobRepo, type LocalJobState } from './local-job-repo.js';

/** A Pending local job closes after this long without an update. */
export const LOCAL_JOB_INACTIVITY_MS = 24 * 60 * 60 * 1000;

/**
 * Told of every local job that reached Succeeded or Failed, once, inside the storing
 * transaction; like JobService's listener it only stores and returns.
 */
export interface LocalJobOutcomeListener {
  localJobEnded(job: LocalJobRecord): void;
}

/** Why an update was not applied. */
export type LocalJobUpdateOutcome = 'updated' | 'unknown' | 'final' | 'closed';

function withoutStatus(fields: LocalJobFields): LocalJobFields {
  const { Status: _status, ...rest } = fields;
  return rest;
}

/** See the file comment. */
export class LocalJobService {
  private readonly repo: LocalJobRepo;

  constructor(
    private readonly store: EmulatorStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly outcomes?: LocalJobOutcomeListener,
  ) {
    this.repo = new LocalJobRepo(store.db);
  }

  /**
   * Records a new local job of the user on the printer; returns its id (X-FMP-JobId). A resend
   * with the same Idempotency-Key (an extension of ours; the spec has none) answers the job the
   * first request made and applies its parameters to it as UpdateLocalJob would (a client that
   * lost the first answer resends what it knows now); a job no longer Pending stays as it is.
   */
  create(
    user: { id: string; organizationId: string },
    printerId: string,
    params: CreateLocalJobParams,
    idempotencyKey?: string,
  ): string {
    const earlier = idempotencyKey ? this.repo.findByKey(user.id, idempotencyKey) : undefined;
    if (earlier) {
      const { Printer: _p, Type: _t, ...fields } = params;
      this.update(user.id, { JobId: earlier, ...fields });
      return earlier;
    }
    const id = randomUUID();
    const now = this.clock.now();
    const { Printer: _printer, Type: type, ...fields } = params;
    const job: LocalJobRecord = {
      id,
      organizationId: user.organizationId,
      userId: user.id,
      printerId,
      type,
      state: params.Status ?? 'Pending',
      fields: withoutStatus(fields),
      createdAt: now,
      updatedAt: now,
      ...(idempotencyKey ? { idempotencyKey } : {}),
    };
    this.store.transaction(() => {
      this.repo.insert(job);
      this.tellOutcome(job);
    });
    this.logger.info({ localJob: id, state: params.Status ?? 'Pending' }, 'local job created');
    return id;
  }

  /** Applies an update of the user's job when the state table allows it. */
  update(userId: string, params: UpdateLocalJobParams): LocalJobUpdateOutcome {
    const job = this.repo.findById(params.JobId.toLowerCase());
    if (!job || job.userId !== userId) return 'unknown';
    const state = this.currentState(job);
    if (state === 'closed') return 'closed';
    if (state !== 'Pending') return 'final';
    const { JobId: _id, ...fields } = params;
    const next: LocalJobState = params.Status ?? 'Pending';
    const saved: LocalJobRecord = {
      ...job,
      state: next,
      fields: { ...job.fields, ...withoutStatus(fields) },
      updatedAt: this.clock.now(),
    };
    this.store.transaction(() => {
      this.repo.save(job.id, next, saved.fields, saved.updatedAt);
      this.tellOutcome(saved);
    });
    this.logger.info({ localJob: job.id, state: next }, 'local job updated');
    return 'updated';
  }

  /** The organization's local jobs on one printer, newest first, with the inactivity rule applied. */
  listForPrinter(organizationId: string, printerId: string, limit = 100): LocalJobRecord[] {
    return this.repo
      .listByPrinter(organizationId, printerId, limit)
      .map((job) => ({ ...job, state: this.currentState(job) }));
  }

  /** A job as stored, with the inactivity rule applied (for tests and reports). */
  find(id: string): LocalJobRecord | undefined {
    const job = this.repo.findById(id.toLowerCase());
    return job && { ...job, state: this.currentState(job) };
  }

  /**
   * Tells the listener of a job in a final state, inside a savepoint of the storing transaction:
   * a listener that throws rolls back only its own writes, and the job is stored all the same.
   */
  private tellOutcome(job: LocalJobRecord): void {
    if (!this.outcomes || (job.state !== 'Succeeded' && job.state !== 'Failed')) return;
    const outcomes = this.outcomes;
    try {
      this.store.transaction(() => outcomes.localJobEnded(job));
    } catch (error) {
      this.logger.error(
        { localJob: job.id, err: error },
        'the local job outcome listener failed; the job is stored',
      );
    }
  }

  /** The job's state now: Pending turns closed once 24 hours passed since its last update. */
  private currentState(job: LocalJobRecord): LocalJobState {
    if (job.state !== 'Pending') return job.state;
    if (this.clock.now() - job.updatedAt < LOCAL_JOB_INACTIVITY_MS) return 'Pending';
    this.repo.close(job.id);
    return 'closed';
  }
}
