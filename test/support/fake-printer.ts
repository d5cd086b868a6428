/**
 * The shared part of the printer fakes of the job-path unit tests (the hardware boundary there):
 * the printer's jobs by id with their names and states, Get-Job-Attributes, finding a job by its
 * name, and Cancel-Job (recorded; a job not yet completed becomes cancelled). A test's fake adds
 * how its printer takes a submission.
 */
import type {
  BackendJob,
  BackendJobState,
  PrinterBackend,
  SubmittedJob,
} from '../../src/printing/printer-backend.js';

export abstract class FakePrinter implements PrinterBackend {
  abstract readonly uri: string;
  readonly jobs = new Map<string, { name: string; state: BackendJobState }>();
  readonly cancelled: string[] = [];

  abstract submit(job: BackendJob): Promise<SubmittedJob>;

  async describe(): Promise<never> {
    throw new Error('not used');
  }

  /** Adds a printer job with the next id (as the printer numbers them); returns the id. */
  hold(name: string, state: BackendJobState): string {
    const id = String(this.jobs.size + 1);
    this.jobs.set(id, { name, state });
    return id;
  }

  /** Whether any printer job is in `state`. */
  anyIn(state: BackendJobState['state']): boolean {
    return [...this.jobs.values()].some((job) => job.state.state === state);
  }

  async jobState(id: string): Promise<BackendJobState> {
    return this.jobs.get(id)?.state ?? { state: 'aborted', reasons: [] };
  }

  async findJobByName(name: string): Promise<SubmittedJob | undefined> {
    const found = [...this.jobs].filter(([, job]) => job.name === name).at(-1);
    return found ? { printerJobId: found[0] } : undefined;
  }

  async cancel(id: string): Promise<void> {
    this.cancelled.push(id);
    const job = this.jobs.get(id);
    if (job && job.state.state !== 'completed') job.state = { state: 'cancelled', reasons: [] };
  }

  async close(): Promise<void> {}
}
