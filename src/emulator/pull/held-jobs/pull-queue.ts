/**
 * PullQueueService: every organization's "Pull Printing" queue printer and the held jobs in each
 * user's queue. It is JobService's JobHolder: a job printed to a queue printer is held here
 * instead of being offered to a connector. `start()` creates missing queue printers; nothing to
 * stop. Held documents are removed from disk when their held job is deleted.
 */
import { randomUUID } from 'node:crypto';
import { unlink } from 'node:fs/promises';
import type { Clock } from '../../../lib/clock.js';
import { errorMessage } from '../../../lib/errors.js';
import type { Logger } from '../../../log/logger.js';
import { TPFM_ATTR_ON_HOLD, type TpfmJob } from '../../../protocol/tpfm-job-list.js';
import type { OrganizationLister } from '../../accounts/accounts-face.js';
import type { PullPrinterRecords } from '../pull-records.js';
import type { EmulatorStore } from '../../emulator-store.js';
import { type HeldJobRecord, HeldJobRepo } from './held-job-repo.js';
import type { PrinterRecord } from '../../printers/printers-face.js';
import { PullPrinterRepo, type PullQueueRecord } from './pull-printer-repo.js';
import type { JobHolder, JobService, JobStatus, NewJob } from '../../jobs/job-service.js';
import { JOB_STATUS_CODE } from '../../jobs/job-status.js';

/** Driver name shown in job-list lines of jobs submitted through /sfapi/. */
export const PULL_DRIVER_NAME = 'PrintRelay Cloud Print';

/** Options of GetJobList. */
export interface HeldJobQuery {
  /** Only jobs this printer can print (by format). */
  printer?: PrinterRecord;
  maxEntries?: number;
  /** Include jobs put on hold. */
  showOnHold: boolean;
}

/** The printer format a document extension needs: PDF, XPS, or RAW for everything else. */
export function formatOfExtension(extension: string): 'PDF' | 'XPS' | 'RAW' {
  const ext = extension.toLowerCase();
  if (ext === 'pdf') return 'PDF';
  if (ext === 'xps' || ext === 'oxps') return 'XPS';
  return 'RAW';
}

/** True when the printer's supported formats include the job's format. */
export function printerSupports(printer: PrinterRecord, extension: string): boolean {
  const wanted = formatOfExtension(extension);
  return printer.supportedFormats.some((f) => f.toUpperCase() === wanted);
}

/** Makes a name safe for a job-list line (no colon, quote or line break). */
function lineSafe(text: string): string {
  return text.replace(/[:"\r\n]+/g, ' ').trim();
}

/** See the file comment. */
export class PullQueueService implements JobHolder {
  private readonly held: HeldJobRepo;
  private readonly queues: PullPrinterRepo;

  constructor(
    store: EmulatorStore,
    private readonly organizations: OrganizationLister,
    printerRecords: PullPrinterRecords,
    private readonly jobs: JobService,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    this.held = new HeldJobRepo(store.db);
    this.queues = new PullPrinterRepo(store.db, printerRecords.connectors, printerRecords.printers);
  }

  /** Creates each organization's queue printer when missing and installs the hold hook. */
  start(): void {
    for (const org of this.organizations.list()) this.ensureQueue(org.id);
    this.jobs.setHolder(this);
  }

  /** The organization's queue printer (created on first use). */
  ensureQueue(organizationId: string): PullQueueRecord {
    return this.queues.ensureQueue(organizationId, this.clock.now());
  }

  /** JobHolder: keeps a job for a queue printer in the user's queue; undefined for other printers. */
  hold(job: NewJob): string | undefined {
    if (!this.queues.isQueuePrinter(job.printerId.toLowerCase())) return undefined;
    const id = randomUUID();
    const now = this.clock.now();
    const extension = job.file.extension.toLowerCase();
    this.held.insert({
      id,
      organizationId: job.organizationId,
      userId: job.userId,
      fileName: `${id}.${extension}`,
      displayName: lineSafe(job.file.name),
      driverName: PULL_DRIVER_NAME,
      file: { ...job.file, extension },
      ticket: job.ticket,
      createdAt: now,
      modifiedAt: now,
    });
    this.logger.info({ job: id }, 'job held in the pull-printing queue');
    return id;
  }

  /**
   * JobHolder: Status of a held job: the last release's status, else 1246 (keep polling). A job
   * released with Delete=1 is gone from the queue, but its id keeps answering with the status of
   * the job the release started, so an app polling Status sees it finish.
   */
  status(orgId: string, jobId: string): JobStatus | undefined {
    const id = jobId.toLowerCase();
    const job = this.held.findById(id);
    if (!job || job.organizationId !== orgId) {
      const released = this.held.lastRelease(id, orgId);
      return released ? this.jobs.status(orgId, released) : undefined;
    }
    const released = job.releasedJobId ? this.jobs.status(orgId, job.releasedJobId) : undefined;
    return (
      released ?? {
        jobpagesprinted: 0,
        jobpagestotal: 0,
        jobposition: 0,
        jobstatus: JOB_STATUS_CODE.noStatusYet,
        jobstatusstring: 'HELD|',
      }
    );
  }

  /** A user's held jobs as job-list entries, filtered and limited as asked. */
  list(userId: string, query: HeldJobQuery): TpfmJob[] {
    const jobs = this.held
      .listForUser(userId)
      .filter((j) => query.showOnHold || !j.onHold)
      .filter((j) => !query.printer || printerSupports(query.printer, j.file.extension));
    const limited = query.maxEntries === undefined ? jobs : jobs.slice(0, query.maxEntries);
    return limited.map((j) => this.toLine(j));
  }

  /** The held jobs not released yet of one organization, or of every one (undefined), oldest first. */
  unreleased(organizationId?: string): HeldJobRecord[] {
    return this.held.listUnreleased(organizationId);
  }

  /** A user's held job by file name or id. */
  find(userId: string, handle: string): HeldJobRecord | undefined {
    return this.held.findForUser(userId, handle);
  }

  /** Sets PutOnHold and/or ModifiedDate (epoch seconds). */
  setProperties(job: HeldJobRecord, props: { onHold?: boolean; modifiedSeconds?: number }): void {
    const modifiedAt = props.modifiedSeconds === undefined ? undefined : props.modifiedSeconds * 1000;
    this.held.setProperties(job.id, {
      ...(props.onHold === undefined ? {} : { onHold: props.onHold }),
      ...(modifiedAt === undefined ? {} : { modifiedAt }),
    });
  }

  /** Records the real job that a release started for a held job. */
  markReleased(job: HeldJobRecord, jobId: string): void {
    this.held.setReleased(job.id, jobId, job.organizationId, this.clock.now());
  }

  /**
   * Deletes a held job's document (one unlink; a document gone already is no error), then the
   * job. Any other OS error leaves the job in place and is thrown.
   */
  async remove(job: HeldJobRecord): Promise<void> {
    try {
      await unlink(job.file.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return this.forget(job);
      this.logger.warn({ job: job.id, err: errorMessage(error) }, 'could not delete a held document');
      throw error;
    }
    this.forget(job);
  }

  private forget(job: HeldJobRecord): void {
    this.held.delete(job.id);
    this.logger.info({ job: job.id }, 'held job deleted');
  }

  private toLine(job: HeldJobRecord): TpfmJob {
    return {
      fileName: job.fileName,
      size: job.file.size,
      created: Math.floor(job.createdAt / 1000),
      modified: Math.floor(job.modifiedAt / 1000),
      attributes: job.onHold ? TPFM_ATTR_ON_HOLD : 0,
      jobId: job.id,
      displayName: job.displayName,
      driverName: job.driverName,
    };
  }
}
