/**
 * JobService: print jobs from the /sfapi/ Print call to the connector and back. Jobs are stored,
 * offered to the connector that owns the printer (WebSocket or poll), claimed by one connector,
 * downloaded, and driven by the connector's events; status() answers the spec's Status. With
 * printanddelete the stored file is removed once the job ends; a document missing from disk at
 * the download fails its job with that reason (410). No resources to clean up.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Clock } from '../../lib/clock.js';
import { ConflictError, GoneError, NotFoundError, PrintRelayError } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import {
  CHANNEL_PATHS,
  type JobEvent,
  type JobEventItemResult,
  type JobOffer,
  WAITING_PREFIX,
} from '../../protocol/connector-channel.js';
import type { PrintTicket } from '../../protocol/print-ticket.js';
import type { ConnectorRecord } from '../connectors/connectors-face.js';
import type { JobRecord } from './job-repo.js';
import type { JobRecords } from './job-records.js';
import type { JobNotifier } from '../connectors/connector-hub.js';
import { type JobOutcomeListener, ignoreJobOutcomes } from './job-outcomes.js';
import { type ClaimEventSteps, claimAndApply } from './job-claim-events.js';
import type { ErrorToResult } from './job-event-batch.js';
import { applyJobEvent, isFinal, parseJobEvent } from './job-events.js';
import { JOB_STATUS_CODE, type JobStatus, jobStatus } from './job-status.js';

/** Why a printer's jobs are held back from its connector (the sandbox's printer faults), or undefined. */
export type PrinterGate = (printerId: string) => string | undefined;

/** Sees a connector's job event before it is applied and returns the event to apply instead. */
export type JobReportFilter = (jobId: string, event: JobEvent) => Promise<JobEvent>;

/** The Status response (re-exported for the print API). */
export type { JobStatus } from './job-status.js';

/** A job as the print API creates it. */
export interface NewJob {
  organizationId: string;
  userId: string;
  printerId: string;
  file: { path: string; size: number; sha256: string; extension: string; contentType: string; name: string };
  ticket: PrintTicket;
  deleteAfterPrint: boolean;
}

/**
 * Pull printing's hook (pull/held-jobs/pull-queue.ts): `hold` keeps a new job in a user's queue instead of
 * offering it (returns the held job's id, or undefined to route the job normally); `status`
 * answers Status for ids JobService does not know.
 */
export interface JobHolder {
  hold(job: NewJob): string | undefined;
  status(orgId: string, jobId: string): JobStatus | undefined;
}

/** One event as stored: the job after it, whether it changed the job, whether it was known. */
interface StoredEvent {
  job: JobRecord;
  applied: boolean;
  duplicate: boolean;
}

/** Called with the job after every applied event or cancellation (see JobService.watch). */
export type JobWatcher = (job: JobRecord) => void;

/** Creates, routes and tracks jobs. */
export class JobService {
  private holder: JobHolder | undefined;
  private reportFilter: JobReportFilter | undefined;
  private printerGate: PrinterGate = () => undefined;
  private readonly watchers = new Map<string, Set<JobWatcher>>();

  constructor(
    /** Its jobs, and the printers, connectors and users they name (job-records.ts). */
    private readonly records: JobRecords,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly notifier: JobNotifier,
    /** Told of every final state inside the storing transaction (the webhook publisher). */
    private readonly outcomes: JobOutcomeListener = ignoreJobOutcomes,
  ) {}

  /** Stores a pending job and offers it to the printer's connector. NotFoundError for a foreign printer. */
  create(job: NewJob): { jobId: string } {
    const printer = this.records.printers.findById(job.printerId.toLowerCase());
    if (!printer || printer.organizationId !== job.organizationId)
      throw new NotFoundError(`printer ${job.printerId}`);
    const heldId = this.holder?.hold(job);
    if (heldId !== undefined) return { jobId: heldId };
    const now = this.clock.now();
    const id = randomUUID();
    this.records.jobs.insert({ ...job, id, printerId: printer.id, createdAt: now, updatedAt: now });
    this.logger.info({ job: id, printer: printer.name }, 'job created');
    if (this.printerGate(printer.id) === undefined)
      this.notifier.jobAvailable(printer.connectorId, this.offer(this.records.jobs.findById(id)!));
    return { jobId: id };
  }

  /** The spec's Status of a job of the organization; undefined for an unknown job (status 2). */
  status(orgId: string, jobId: string): JobStatus | undefined {
    const job = this.records.jobs.findById(jobId);
    if (!job || job.organizationId !== orgId) return this.holder?.status(orgId, jobId);
    // The queue place counts unfinished jobs; a finished job has none, so the count is skipped.
    if (isFinal(job.state)) return jobStatus(job, 0);
    const held = job.state === 'pending' ? this.printerGate(job.printerId) : undefined;
    const shown = held === undefined ? job : { ...job, message: `${WAITING_PREFIX}${held}` };
    return jobStatus(shown, this.records.jobs.queuePosition(job));
  }

  /** A job of the organization (for other parts of the emulator), or undefined. */
  find(orgId: string, jobId: string): JobRecord | undefined {
    const job = this.records.jobs.findById(jobId);
    return job?.organizationId === orgId ? job : undefined;
  }

  /**
   * Offers for the connector's printers, oldest first: `fresh` are the pending jobs, `reclaimable`
   * the ones this connector claimed but never reported received. A connector killed between its
   * claim and recording the job gets those again (claiming is idempotent for the holder), so no
   * claimed job is stranded; a connector that has the job in its ledger ignores the offer.
   */
  pendingOffers(connectorId: string): { fresh: JobOffer[]; reclaimable: JobOffer[] } {
    const printers = this.records.printers.listByOrganization(
      this.records.connectors.findById(connectorId)?.organizationId ?? '',
    );
    const own = printers
      .filter((p) => p.connectorId === connectorId && this.printerGate(p.id) === undefined)
      .map((p) => p.id);
    const fresh: JobOffer[] = [];
    const reclaimable: JobOffer[] = [];
    for (const job of this.records.jobs.offerableForPrinters(own, connectorId)) {
      (job.state === 'pending' ? fresh : reclaimable).push(this.offer(job));
    }
    return { fresh, reclaimable };
  }

  /** Claims a job for the connector: 404 unknown or foreign, 409 held by another connector or finished. */
  claim(connector: ConnectorRecord, jobId: string): JobOffer {
    const job = this.requireForConnector(connector, jobId);
    if (isFinal(job.state)) throw new ConflictError(`job ${jobId} already ended (${job.state})`, 'job_id');
    if (!this.records.jobs.claim(job.id, connector.id, this.clock.now())) {
      throw new ConflictError(`job ${jobId} is held by another connector`, 'job_id');
    }
    this.logger.info({ job: job.id, connector: connector.id }, 'job claimed');
    return this.offer(this.records.jobs.findById(job.id)!);
  }

  /**
   * The job whose document the connector may download (it holds the claim, again as often as it
   * needs: a connector that kept a small document only in memory fetches it again after a
   * restart); 410 when the file is gone or the job ended. With `claim` (protocol 2, `?claim=1`) the download claims an unclaimed job first, as
   * POST .../claim would (409 when another connector holds it or the job ended).
   */
  documentFor(connector: ConnectorRecord, jobId: string, options: { claim?: boolean } = {}): JobRecord {
    let job = this.requireForConnector(connector, jobId);
    if (options.claim && job.claimedBy !== connector.id) {
      this.claim(connector, jobId);
      job = this.requireForConnector(connector, jobId);
    }
    if (job.claimedBy !== connector.id)
      throw new ConflictError(`job ${jobId}: claim it before downloading`, 'job_id');
    if (job.fileDeleted) throw new GoneError(`job ${jobId}: the document was deleted`);
    // An ended job (cancelled by its user, failed) prints no more: its holder, downloading it
    // again after a restart, learns so instead of printing it.
    if (isFinal(job.state))
      throw new GoneError(`job ${jobId} already ended (${job.state}); its document is no longer served`);
    if (!existsSync(job.file.path)) this.failMissingDocument(job);
    return job;
  }

  /**
   * The stored document of an unfinished job is gone from disk (removed by hand, or a data
   * directory restored without it): the job fails with that reason, once, and the download
   * answers 410 instead of a server error; the connector's later events find the job ended.
   */
  private failMissingDocument(job: JobRecord): never {
    const now = this.clock.now();
    if (!isFinal(job.state)) {
      const message = 'the document is missing on the server; print it again';
      const ended: JobRecord = {
        ...job,
        state: 'failed',
        errorCode: JOB_STATUS_CODE.restart,
        message,
        finishedAt: now,
      };
      this.records.transaction(() => {
        this.records.jobs.saveProgress(job.id, ended, now);
        this.records.jobs.markFileDeleted(job.id);
        this.tellOutcome(ended);
      });
      this.logger.warn({ job: job.id }, 'the document of the job is missing on disk: job failed');
      this.notifyWatchers(job.id);
    } else {
      this.records.jobs.markFileDeleted(job.id);
    }
    throw new GoneError(`job ${job.id}: the document is missing on the server`);
  }

  /** Applies a connector's event (idempotent by event_id, in seq order); returns whether it changed the job. */
  async applyEvent(connector: ConnectorRecord, jobId: string, body: unknown): Promise<boolean> {
    const event = await this.prepareEvent(jobId, body);
    const result = this.records.transaction(() => this.storeEvent(connector, jobId, event));
    await this.afterEvent(connector, jobId, event, result);
    return result.applied;
  }

  /**
   * Claims the job for the connector and applies `events` (its own, unchecked) in one transaction
   * (connector protocol 4, job-claim-events.ts): throws as claim() does when the claim is refused
   * (nothing applied); otherwise one result per event, as a batch answers them.
   */
  claimWithEvents(
    connector: ConnectorRecord,
    jobId: string,
    events: unknown[],
    toResult: ErrorToResult,
  ): Promise<JobEventItemResult[]> {
    const steps: ClaimEventSteps<{ event: JobEvent; result: StoredEvent }> = {
      prepare: (body) => this.prepareEvent(jobId, body),
      inTransaction: (work) => this.records.transaction(work),
      claim: () => void this.claim(connector, jobId),
      apply: (event) => ({ event, result: this.storeEvent(connector, jobId, event) }),
      after: ({ event, result }) => this.afterEvent(connector, jobId, event, result),
    };
    return claimAndApply(steps, events, toResult);
  }

  /** The checked event, after the report filter. */
  private async prepareEvent(jobId: string, body: unknown): Promise<JobEvent> {
    const parsed = parseJobEvent(body);
    return this.reportFilter ? await this.reportFilter(jobId.toLowerCase(), parsed) : parsed;
  }

  /** Writes one checked event; the caller holds the transaction. */
  private storeEvent(connector: ConnectorRecord, jobId: string, event: JobEvent): StoredEvent {
    let job = this.requireForConnector(connector, jobId);
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
    if (next && isFinal(next.state)) this.tellOutcome({ ...job, ...next });
    return { job: next ? { ...job, ...next } : job, applied: next !== undefined, duplicate: false };
  }

  /** What follows a stored event once committed: the log line, the watchers, a finished job's file. */
  private async afterEvent(
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
    if (result.applied) this.notifyWatchers(result.job.id);
    if (result.applied && isFinal(result.job.state)) await this.finished(result.job);
  }

  /** Cancels an unfinished job and tells its connector; false when it already ended. */
  cancel(orgId: string, jobId: string): boolean {
    const job = this.find(orgId, jobId);
    if (!job) throw new NotFoundError(`job ${jobId}`);
    if (isFinal(job.state)) return false;
    const now = this.clock.now();
    const ended: JobRecord = { ...job, state: 'cancelled', finishedAt: now };
    this.records.transaction(() => {
      this.records.jobs.saveProgress(job.id, ended, now);
      this.tellOutcome(ended);
    });
    const printer = this.records.printers.findById(job.printerId);
    const connectorId = job.claimedBy ?? printer?.connectorId;
    if (connectorId) this.notifier.jobCancelled(connectorId, job.id);
    this.notifyWatchers(job.id);
    void this.finished({ ...job, state: 'cancelled' });
    return true;
  }

  /** Installs the gate that holds a printer's new jobs back (the sandbox's printer faults). */
  setPrinterGate(gate: PrinterGate): void {
    this.printerGate = gate;
  }

  /** Offers the printer's pending jobs to its connector again (after its gate opened). */
  reoffer(printerId: string): void {
    const printer = this.records.printers.findById(printerId);
    if (!printer || this.printerGate(printer.id) !== undefined) return;
    for (const job of this.records.jobs.offerableForPrinters([printer.id], printer.connectorId))
      if (job.state === 'pending') this.notifier.jobAvailable(printer.connectorId, this.offer(job));
  }

  /** Installs the filter of connectors' reports (the sandbox's job faults; a later call replaces it). */
  setReportFilter(filter: JobReportFilter): void {
    this.reportFilter = filter;
  }

  /** Installs the pull-printing hold hook (one holder; a later call replaces it). */
  setHolder(holder: JobHolder): void {
    this.holder = holder;
  }

  /**
   * Calls `watcher` with the job's record after every applied event or cancellation; returns
   * the function that stops watching (the caller calls it when done).
   */
  watch(jobId: string, watcher: JobWatcher): () => void {
    const set = this.watchers.get(jobId) ?? new Set<JobWatcher>();
    this.watchers.set(jobId, set);
    set.add(watcher);
    return () => {
      set.delete(watcher);
      if (set.size === 0 && this.watchers.get(jobId) === set) this.watchers.delete(jobId);
    };
  }

  private notifyWatchers(jobId: string): void {
    const set = this.watchers.get(jobId);
    if (!set) return;
    const job = this.records.jobs.findById(jobId);
    if (job) for (const watcher of [...set]) watcher(job);
  }

  /** The offer the connector gets for a job. */
  offer(job: JobRecord): JobOffer {
    const printer = this.records.printers.findById(job.printerId);
    const user = this.records.users.findById(job.userId);
    return {
      job_id: job.id,
      printer_id: job.printerId,
      tp_id: printer?.tpId ?? 0,
      document: {
        url: CHANNEL_PATHS.document(job.id),
        size: job.file.size,
        sha256: job.file.sha256,
        extension: job.file.extension,
        content_type: job.file.contentType,
        name: job.file.name,
      },
      ticket: job.ticket,
      user: {
        id: job.userId,
        email: user?.email ?? '',
        name: user ? `${user.firstName} ${user.lastName}`.trim() : '',
      },
      created: new Date(job.createdAt).toISOString(),
    };
  }

  private requireForConnector(connector: ConnectorRecord, jobId: string): JobRecord {
    const job = this.records.jobs.findById(jobId);
    const printer = job && this.records.printers.findById(job.printerId);
    if (
      !job ||
      job.organizationId !== connector.organizationId ||
      !printer ||
      printer.connectorId !== connector.id
    ) {
      if (
        job &&
        job.organizationId === connector.organizationId &&
        job.claimedBy !== null &&
        job.claimedBy !== connector.id
      ) {
        throw new ConflictError(`job ${jobId} is held by another connector`, 'job_id');
      }
      // A job of the organization on another connector's printer: the answer names the connector
      // the call was taken as, so a caller taken for another one (no X-Host-Id) can tell.
      const sameOrg = job?.organizationId === connector.organizationId;
      throw new NotFoundError(
        sameOrg ? `job ${jobId} of connector "${connector.readableName}"` : `job ${jobId}`,
      );
    }
    return job;
  }

  /**
   * Tells the outcome listener inside a savepoint of the caller's transaction: a listener that
   * throws rolls back only its own writes, and the job's final state is stored all the same.
   */
  private tellOutcome(job: JobRecord): void {
    try {
      this.records.transaction(() => this.outcomes.jobEnded(job));
    } catch (error) {
      this.logger.error({ job: job.id, err: error }, 'the job outcome listener failed; the job is stored');
    }
  }

  private async finished(job: JobRecord): Promise<void> {
    this.logger.info({ job: job.id, state: job.state }, 'job ended');
    if (!job.deleteAfterPrint || job.fileDeleted) return;
    try {
      await rm(job.file.path, { force: true });
      this.records.jobs.markFileDeleted(job.id);
    } catch (error) {
      this.logger.warn(
        { job: job.id, err: error instanceof PrintRelayError ? error.message : error },
        'could not delete the printed file',
      );
    }
  }
}
