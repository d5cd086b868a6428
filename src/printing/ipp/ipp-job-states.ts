/**
 * The job states of one IPP printer, asked for together. The agent watches each of its jobs at a
 * printer on its own schedule; when several of them ask at once (a call comes while another
 * status request to that printer is still out), they wait for that request to end and then go
 * together in one Get-Jobs (`which-jobs=not-completed`, only the attributes jobStateOf reads)
 * instead of one Get-Job-Attributes each. A job the list holds has its state from the list; a
 * job missing from it has ended (or is not this printer's any more) and is asked for with its
 * own Get-Job-Attributes, so how it ended, its page counts and a job the printer no longer knows
 * come from the printer's word on that job alone, exactly as without the list. A lone call goes
 * straight out as Get-Job-Attributes with the caller's signal. A printer without Get-Jobs in
 * operations-supported, or that refuses the Get-Jobs, gets Get-Job-Attributes for every job.
 * Holds no connection: the client's own.
 */
import type { PrinterAttributes } from '../printer-backend.js';
import type { IppClient } from './ipp-client.js';
import { IppRejectedError } from './ipp-errors.js';

/** What JobStates needs of an IppClient. */
export type JobStateClient = Pick<IppClient, 'getJobAttributes' | 'getJobs'>;

interface Waiter {
  resolve(attributes: PrinterAttributes): void;
  reject(error: unknown): void;
  signal?: AbortSignal;
}

export class JobStates {
  /** Calls waiting for the next request, by printer job id. */
  private queued = new Map<number, Waiter[]>();
  private asking = false;
  /** False once the printer refused a Get-Jobs: each job is then asked for alone. */
  private listWorks = true;

  constructor(
    private readonly client: JobStateClient,
    /** The job attributes to ask for (jobStateOf's). */
    private readonly requested: string[],
    /** True when the printer lists Get-Jobs in operations-supported (as far as known now). */
    private readonly listsJobs: () => boolean,
  ) {}

  /** The attributes of job `jobId` (`requested`); rejects as Get-Job-Attributes would. */
  state(jobId: number, signal?: AbortSignal): Promise<PrinterAttributes> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const answer = new Promise<PrinterAttributes>((resolve, reject) => {
      const waiters = this.queued.get(jobId) ?? [];
      waiters.push({ resolve, reject, ...(signal ? { signal } : {}) });
      this.queued.set(jobId, waiters);
    });
    if (!this.asking) void this.askWhileQueued();
    return signal ? abortable(answer, signal) : answer;
  }

  /** Sends requests until no call waits: each takes every call queued when it starts. */
  private async askWhileQueued(): Promise<void> {
    this.asking = true;
    try {
      while (this.queued.size > 0) {
        const batch = this.queued;
        this.queued = new Map();
        await this.ask(batch);
      }
    } finally {
      this.asking = false;
    }
  }

  private async ask(batch: Map<number, Waiter[]>): Promise<void> {
    const listed = batch.size > 1 && this.listWorks && this.listsJobs() ? await this.list() : undefined;
    await Promise.all(
      [...batch].map(async ([jobId, waiters]) => {
        const fromList = listed?.get(jobId);
        if (fromList) {
          for (const w of waiters) w.resolve(fromList);
          return;
        }
        // A lone call keeps its own signal (shutdown ends the request at once).
        const signal = waiters.length === 1 ? waiters[0]?.signal : undefined;
        try {
          const attributes = await this.client.getJobAttributes(jobId, signal, this.requested);
          for (const w of waiters) w.resolve(attributes);
        } catch (error) {
          for (const w of waiters) w.reject(error);
        }
      }),
    );
  }

  /** The printer's unfinished jobs by id; undefined when the list could not be had. */
  private async list(): Promise<Map<number, PrinterAttributes> | undefined> {
    try {
      const jobs = await this.client.getJobs('not-completed', undefined, this.requested);
      const byId = new Map<number, PrinterAttributes>();
      for (const job of jobs) if (typeof job['job-id'] === 'number') byId.set(job['job-id'], job);
      return byId;
    } catch (error) {
      if (error instanceof IppRejectedError) this.listWorks = false;
      return undefined;
    }
  }
}

/** `answer`, or the signal's reason once it aborts first. */
function abortable<T>(answer: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    answer.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
