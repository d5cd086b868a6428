/**
 * A connector's job events applied to its jobs (JobService.applyEvent and claimWithEvents): each
 * event is checked and passed through the report filter, stored in a transaction (idempotent by
 * event_id, in seq order; an event of an unclaimed job claims it for its sender), and once
 * committed logged, told to the job's watchers, and a finished job's end cleaned up. Holds only
 * the report filter; no resources to clean up.
 */
import type { Clock } from '../../lib/clock.js';
import { ConflictError } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type { JobEvent, JobEventItemResult } from '../../protocol/connector-channel.js';
import type { ConnectorRecord } from '../connectors/connectors-face.js';
import { type ClaimEventSteps, claimAndApply } from './job-claim-events.js';
import type { JobEndings } from './job-endings.js';
import type { ErrorToResult } from './job-event-batch.js';
import { applyJobEvent, isFinal, parseJobEvent } from './job-events.js';
import { requireJobOfConnector } from './job-offer.js';
import type { JobRecords } from './job-records.js';
import type { JobRecord } from './job-repo.js';
import type { JobWatchers } from './job-watchers.js';

/** Sees a connector's job event before it is applied and returns the event to apply instead. */
export type JobReportFilter = (jobId: string, event: JobEvent) => Promise<JobEvent>;

/** Claims a job for a connector; throws when it is not the connector's to take (JobService.claim). */
export type JobClaimer = (connector: ConnectorRecord, jobId: string) => void;

/** One event as stored: the job after it, whether it changed the job, whether it was known. */
interface StoredEvent {
  job: JobRecord;
  applied: boolean;
  duplicate: boolean;
}

/** Applies connectors' job events. */
export class JobEventApplier {
  private reportFilter: JobReportFilter | undefined;

  constructor(
    private readonly records: Pick<JobRecords, 'transaction' | 'jobs' | 'printers'>,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly watchers: JobWatchers,
    private readonly endings: JobEndings,
    /** The claim a protocol 4 claim with events makes before its events. */
    private readonly claim: JobClaimer,
  ) {}

  /** Installs the filter of connectors' reports (a later call replaces it). */
  setReportFilter(filter: JobReportFilter): void {
    this.reportFilter = filter;
  }

  /** Applies a connector's event (idempotent by event_id, in seq order); returns whether it changed the job. */
  async apply(connector: ConnectorRecord, jobId: string, body: unknown): Promise<boolean> {
    const event = await this.prepare(jobId, body);
    const result = this.records.transaction(() => this.store(connector, jobId, event));
    await this.after(connector, jobId, event, result);
    return result.applied;
  }

  /**
   * Claims the job for the connector and applies `events` in one transaction (connector
   * protocol 4, job-claim-events.ts): throws as the claim does when it is refused (nothing
   * applied); otherwise one result per event, as a batch answers them.
   */
  claimWithEvents(
    connector: ConnectorRecord,
    jobId: string,
    events: unknown[],
    toResult: ErrorToResult,
  ): Promise<JobEventItemResult[]> {
    const steps: ClaimEventSteps<{ event: JobEvent; result: StoredEvent }> = {
      prepare: (body) => this.prepare(jobId, body),
      inTransaction: (work) => this.records.transaction(work),
      claim: () => this.claim(connector, jobId),
      apply: (event) => ({ event, result: this.store(connector, jobId, event) }),
      after: ({ event, result }) => this.after(connector, jobId, event, result),
    };
    return claimAndApply(steps, events, toResult);
  }

  /** The checked event, after the report filter. */
  private async prepare(jobId: string, body: unknown): Promise<JobEvent> {
    const parsed = parseJobEvent(body);
    return this.reportFilter ? await this.reportFilter(jobId.toLowerCase(), parsed) : parsed;
  }

  /** Writes one checked event; the caller holds the transaction. */
  private store(connector: ConnectorRecord, jobId: string, event: JobEvent): StoredEvent {
    let job = requireJobOfConnector(this.records, connector, jobId);
    if (job.claimedBy !== null && job.claimedBy !== connector.id)
      throw new ConflictError(`job ${jobId} is held by another connector`, 'job_id');
    if (this.records.jobs.hasEvent(event.event_id)) return { job, applied: false, duplicate: true };
    // Protocol 2: an event of an unclaimed job claims it for its sender (the connector of its
    // printer), so the `received` events of several jobs in one batch claim them all at once.
    if (job.claimedBy === null && !isFinal(job.state)) {
      this.records.jobs.claim(job.id, connector.id, this.clock.now());
      job = { ...job, claimedBy: connector.id, state: job.state === 'pending' ? 'claimed' : job.state };
    }
    const next = applyJobEvent(job, event, this.clock.now());
    this.records.jobs.insertEvent(
      {
        eventId: event.event_id,
        jobId: job.id,
        seq: event.seq,
        kind: event.kind,
        at: event.at,
        body: event,
        applied: next !== undefined,
      },
      this.clock.now(),
    );
    if (next) this.records.jobs.saveProgress(job.id, next, this.clock.now());
    if (next && isFinal(next.state)) this.endings.tellOutcome({ ...job, ...next });
    return { job: next ? { ...job, ...next } : job, applied: next !== undefined, duplicate: false };
  }

  /** What follows a stored event once committed: the log line, the watchers, a finished job's file. */
  private async after(
    connector: ConnectorRecord,
    jobId: string,
    event: JobEvent,
    result: StoredEvent,
  ): Promise<void> {
    const log = this.logger.child({ job: jobId, connector: connector.id });
    log.debug(
      { kind: event.kind, seq: event.seq, applied: result.applied, duplicate: result.duplicate },
      'job event',
    );
    if (result.applied) this.watchers.notify(result.job.id);
    if (result.applied && isFinal(result.job.state)) await this.endings.finished(result.job);
  }
}
