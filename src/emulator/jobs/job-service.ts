/**
 * JobService: print jobs from the /sfapi/ Print call to the connector and back. Jobs are stored,
 * offered to the connector that owns the printer (WebSocket or poll), claimed by one connector,
 * downloaded, and driven by the connector's events; status() answers the spec's Status. With
 * printanddelete the stored file is removed once the job ends; a document missing from disk at
 * the download fails its job with that reason (410). Its parts, built here: the events applied
 * (job-event-applier.ts), the watchers (job-watchers.ts), a job's end (job-endings.ts) and the
 * offer (job-offer.ts). No resources to clean up.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Clock } from '../../lib/clock.js';
import { ConflictError, GoneError, NotFoundError } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import { type JobEventItemResult, type JobOffer, WAITING_PREFIX } from '../../protocol/connector-channel.js';
import type { PrintTicket } from '../../protocol/print-ticket.js';
import type { JobNotifier } from '../connectors/connector-hub.js';
import type { ConnectorRecord } from '../connectors/connectors-face.js';
import { JobEndings } from './job-endings.js';
import { JobEventApplier, type JobReportFilter } from './job-event-applier.js';
import type { ErrorToResult } from './job-event-batch.js';
import { isFinal } from './job-events.js';
import { jobOffer, requireJobOfConnector } from './job-offer.js';
import { type JobOutcomeListener, ignoreJobOutcomes } from './job-outcomes.js';
import type { JobRecords } from './job-records.js';
import type { JobRecord } from './job-repo.js';
import { JOB_STATUS_CODE, type JobStatus, jobStatus } from './job-status.js';
import { type JobWatcher, JobWatchers } from './job-watchers.js';

/** Why a printer's jobs are held back from its connector (the sandbox's printer faults), or undefined. */
export type PrinterGate = (printerId: string) => string | undefined;

/** The Status response (re-exported for the print API). */
export type { JobStatus } from './job-status.js';
/** The report filter (job-event-applier.ts) and the watcher (job-watchers.ts), re-exported for callers. */
export type { JobReportFilter } from './job-event-applier.js';
export type { JobWatcher } from './job-watchers.js';

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

/** Creates, routes and tracks jobs. */
export class JobService {
  private holder: JobHolder | undefined;
  private printerGate: PrinterGate = () => undefined;
  private readonly watchers: JobWatchers;
  private readonly endings: JobEndings;
  private readonly events: JobEventApplier;

  constructor(
    /** Its jobs, and the printers, connectors and users they name (job-records.ts). */
    private readonly records: JobRecords,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly notifier: JobNotifier,
    /** Told of every final state inside the storing transaction (the webhook publisher). */
    outcomes: JobOutcomeListener = ignoreJobOutcomes,
  ) {
    this.watchers = new JobWatchers((jobId) => records.jobs.findById(jobId));
    this.endings = new JobEndings(records, logger, outcomes);
    const claim = (connector: ConnectorRecord, jobId: string) => void this.claim(connector, jobId);
    this.events = new JobEventApplier(records, clock, logger, this.watchers, this.endings, claim);
  }

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
        this.endings.tellOutcome(ended);
      });
      this.logger.warn({ job: job.id }, 'the document of the job is missing on disk: job failed');
      this.watchers.notify(job.id);
    } else {
      this.records.jobs.markFileDeleted(job.id);
    }
    throw new GoneError(`job ${job.id}: the document is missing on the server`);
  }

  /** Applies a connector's event (idempotent by event_id, in seq order); returns whether it changed the job. */
  applyEvent(connector: ConnectorRecord, jobId: string, body: unknown): Promise<boolean> {
    return this.events.apply(connector, jobId, body);
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
    return this.events.claimWithEvents(connector, jobId, events, toResult);
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
      this.endings.tellOutcome(ended);
    });
    const printer = this.records.printers.findById(job.printerId);
    const connectorId = job.claimedBy ?? printer?.connectorId;
    if (connectorId) this.notifier.jobCancelled(connectorId, job.id);
    this.watchers.notify(job.id);
    void this.endings.finished({ ...job, state: 'cancelled' });
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
    this.events.setReportFilter(filter);
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
    return this.watchers.watch(jobId, watcher);
  }

  /** The offer the connector gets for a job. */
  offer(job: JobRecord): JobOffer {
    return jobOffer(this.records, job);
  }

  private requireForConnector(connector: ConnectorRecord, jobId: string): JobRecord {
    return requireJobOfConnector(this.records, connector, jobId);
  }
}
