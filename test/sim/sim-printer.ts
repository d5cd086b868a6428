/**
 * A model of an IPP printer that records exactly which bytes of which job arrived. Jobs are
 * created by Create-Job (waiting for their document) or Print-Job, receive the document chunk
 * by chunk, then wait in a queue and print one at a time (time in proportion to their size).
 * A job printed is a sheet of paper: it stays in `prints` even when the printer later forgets
 * the job. Busy once `capacity` unfinished jobs are held; a broken connection completes, aborts
 * or leaves waiting the job it carried (the plan's cutPolicy); a job left waiting for its
 * document longer than the printer's operation timeout (IPP multiple-operation-time-out) is
 * aborted; restarts refuse connections for a while, cut transfers and keep or forget the jobs;
 * stalls leave requests unanswered. An ended job reports the K octets it received
 * (job-k-octets) unless the plan says the printer cannot tell.
 */
import { PermanentError, RetryableError } from '../../src/lib/errors.js';
import type { BackendJobState } from '../../src/printing/printer-backend.js';
import { CHUNK_BYTES, type PrinterPlan, within } from './scenario.js';
import type { SimWorld } from './sim-world.js';

type ModelState = 'waiting' | 'pending' | 'processing' | 'completed' | 'aborted' | 'cancelled';

interface PrinterJob {
  id: number;
  name: string;
  chunks: Buffer[];
  state: ModelState;
  /** Created by Create-Job (the document comes in a later request). */
  created: boolean;
  /** When the job last heard from the client (creation or a chunk), for the operation timeout. */
  heardAt: number;
  printStart?: number;
  printEnd?: number;
}

/** What the simulation remembers of a printer job, even after the printer forgot it. */
export interface JobRecord {
  /** The ledger's submit attempt count when the job was created. */
  attempt: number;
  /** The agent cancelled it (Cancel-Job reached the printer while the job was unfinished). */
  cancelledByAgent: boolean;
}

/** A document that came out of the printer. */
export interface Print {
  printer: string;
  printerJobId: number;
  jobName: string;
  bytes: Buffer;
}

export class SimPrinter {
  /** Bumped at every restart: connections opened before it are cut. */
  boot = 0;
  readonly prints: Print[] = [];
  readonly records = new Map<number, JobRecord>();
  private readonly jobs = new Map<number, PrinterJob>();
  private readonly queue: PrinterJob[] = [];
  private nextId = 1;
  /** When the printer's engine is free for the next job. */
  private engineFree = 0;
  /** Told the name of every job the printer creates (the invariants' view of what it heard when). */
  onJobCreated: (name: string) => void = () => {};

  constructor(
    readonly plan: PrinterPlan,
    private readonly world: SimWorld,
    start: number,
  ) {
    for (const restart of plan.restarts) world.at(start + restart.at, () => this.restart(restart.forget));
  }

  /** How the printer answers a new connection now. */
  status(): 'up' | 'restarting' | 'stalled' {
    const t = this.world.elapsed();
    if (within(this.plan.restarts, t)) return 'restarting';
    if (within(this.plan.stalls, t)) return 'stalled';
    return 'up';
  }

  /** Create-Job: a job waiting for its document. */
  createJob(name: string, attempt: number): number {
    return this.newJob(name, true, attempt).id;
  }

  /** Print-Job: the job exists as soon as the request's header arrived. */
  printJob(name: string, attempt: number): number {
    return this.newJob(name, false, attempt).id;
  }

  receive(id: number, chunk: Buffer): void {
    const job = this.jobs.get(id);
    if (job?.state !== 'waiting') return;
    job.chunks.push(chunk);
    job.heardAt = this.world.now();
  }

  /** The last byte of the document arrived: the job queues for printing. */
  endDocument(id: number): void {
    const job = this.jobs.get(id);
    if (job?.state !== 'waiting') return;
    this.settle();
    job.state = 'pending';
    const bytes = job.chunks.reduce((n, c) => n + c.length, 0);
    job.printStart = Math.max(this.world.now(), this.engineFree);
    job.printEnd = job.printStart + 20 + Math.ceil(bytes * this.plan.msPerByte);
    this.engineFree = job.printEnd;
    this.queue.push(job);
  }

  /** The connection carrying the job's document broke before the document ended. */
  cut(id: number): void {
    const job = this.jobs.get(id);
    if (job?.state !== 'waiting') return;
    const policy = this.plan.onCut === 'wait' && !job.created ? 'abort' : this.plan.onCut;
    if (policy === 'complete') this.endDocument(id);
    else if (policy === 'abort') job.state = 'aborted';
  }

  /** Get-Job-Attributes. */
  jobState(id: number): BackendJobState {
    this.settle();
    const job = this.jobs.get(id);
    if (!job) throw new PermanentError('printer_rejected', `client-error-not-found: job ${id}`);
    const pagesTotal = Math.max(1, Math.ceil(job.chunks.reduce((n, c) => n + c.length, 0) / CHUNK_BYTES));
    const state = job.state === 'waiting' ? 'pending' : job.state;
    const reasons = job.state === 'waiting' ? ['job-data-insufficient'] : [];
    let pagesCompleted = job.state === 'completed' ? pagesTotal : 0;
    if (job.state === 'processing' && job.printStart !== undefined && job.printEnd !== undefined) {
      const done = (this.world.now() - job.printStart) / Math.max(1, job.printEnd - job.printStart);
      pagesCompleted = Math.min(pagesTotal - 1, Math.floor(done * pagesTotal));
    }
    const bytes = job.chunks.reduce((n, c) => n + c.length, 0);
    const ended = state === 'completed' || state === 'aborted' || state === 'cancelled';
    const kOctets = ended && this.plan.reportsKOctets ? { kOctets: Math.ceil(bytes / 1024) } : {};
    return { state, reasons, pagesCompleted, pagesTotal, ...kOctets };
  }

  /** Get-Jobs (which-jobs=not-completed): the unfinished jobs with their states. */
  unfinished(): { id: number; state: BackendJobState }[] {
    this.settle();
    const open = [...this.jobs.values()].filter(
      (job) => job.state === 'waiting' || job.state === 'pending' || job.state === 'processing',
    );
    return open.map((job) => ({ id: job.id, state: this.jobState(job.id) }));
  }

  /** True while the job waits for (the rest of) its document. */
  waitsForDocument(id: number): boolean {
    this.settle();
    return this.jobs.get(id)?.state === 'waiting';
  }

  /** Get-Jobs (which-jobs=all) by job-name: the newest match. */
  findByName(name: string): number | undefined {
    let found: number | undefined;
    for (const job of this.jobs.values()) if (job.name === name && (found ?? 0) < job.id) found = job.id;
    return found;
  }

  /** Cancel-Job; nothing for a job that ended or is unknown. */
  cancel(id: number): void {
    this.settle();
    const job = this.jobs.get(id);
    if (!job || job.state === 'completed' || job.state === 'aborted' || job.state === 'cancelled') return;
    job.state = 'cancelled';
    const record = this.records.get(id);
    if (record) record.cancelledByAgent = true;
    const queued = this.queue.indexOf(job);
    if (queued >= 0) this.queue.splice(queued, 1);
    this.replan();
  }

  /** Moves printing forward to now: jobs whose time came finish, in order. */
  settle(): void {
    const now = this.world.now();
    const timeout = this.plan.operationTimeoutMs;
    if (timeout !== undefined) {
      for (const job of this.jobs.values())
        if (job.state === 'waiting' && now - job.heardAt > timeout) job.state = 'aborted';
    }
    while (this.queue.length > 0) {
      const head = this.queue[0] as PrinterJob;
      if ((head.printEnd ?? 0) > now) {
        if ((head.printStart ?? 0) <= now) head.state = 'processing';
        return;
      }
      this.queue.shift();
      head.state = 'completed';
      this.prints.push({
        printer: this.plan.id,
        printerJobId: head.id,
        jobName: head.name,
        bytes: Buffer.concat(head.chunks),
      });
    }
  }

  private newJob(name: string, created: boolean, attempt: number): PrinterJob {
    this.settle();
    let unfinished = 0;
    for (const job of this.jobs.values())
      if (job.state === 'waiting' || job.state === 'pending' || job.state === 'processing') unfinished++;
    if (unfinished >= this.plan.capacity) {
      throw new RetryableError('printer_busy', 'server-error-busy');
    }
    const job: PrinterJob = {
      id: this.nextId++,
      name,
      chunks: [],
      state: 'waiting',
      created,
      heardAt: this.world.now(),
    };
    this.jobs.set(job.id, job);
    this.records.set(job.id, { attempt, cancelledByAgent: false });
    this.onJobCreated(name);
    return job;
  }

  /** After a cancel the jobs behind print earlier. */
  private replan(): void {
    let free = this.world.now();
    for (const job of this.queue) {
      if (job.state === 'processing') {
        free = job.printEnd ?? free;
        continue;
      }
      const length = (job.printEnd ?? 0) - (job.printStart ?? 0);
      job.printStart = free;
      job.printEnd = free + length;
      free = job.printEnd;
    }
    this.engineFree = free;
  }

  /** A restart: transfers are cut (their jobs follow the cut policy), jobs kept or forgotten. */
  private restart(forget: boolean): void {
    this.settle();
    this.boot++;
    for (const job of this.jobs.values()) if (job.state === 'waiting' && !job.created) this.cut(job.id);
    if (!forget) return;
    this.jobs.clear();
    this.queue.length = 0;
    this.engineFree = this.world.now();
  }
}
