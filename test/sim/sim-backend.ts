/**
 * The agent's PrinterBackend over a SimPrinter, behaving as the IPP backend does: Create-Job
 * (the id goes to onPrinterJobCreated) then Send-Document, or Print-Job for a printer without
 * Create-Job; the document streams from the simulated spool in chunks, each arriving after a
 * network delay; onDocumentFlushed as the last chunk goes to the operating system (a crash of
 * the agent still delivers it, a cut does not), onDocumentSent only once the printer's answer
 * to the request carrying the document arrived with success (never when that answer is lost).
 * The `handed` variant breaks this on purpose (see SimVariant). Faults: refused connections while
 * the printer restarts, unanswered requests while it stalls (a timeout, outcome unknown), cut
 * transfers, lost answers (the request did arrive), busy answers. Errors are the agent's own
 * kinds, with the socket codes the submit step tells apart. Job states go through the IPP
 * backend's own JobStates, as IPP job attributes: polls of several jobs that come at once share
 * one Get-Jobs of the unfinished jobs, each end from a Get-Job-Attributes of its own.
 */
import { PermanentError, RetryableError } from '../../src/lib/errors.js';
import type {
  BackendJob,
  BackendJobState,
  PrinterBackend,
  PrinterDescription,
  SubmittedJob,
} from '../../src/printing/printer-backend.js';
import { JOB_STATE_ATTRIBUTES, jobStateOf } from '../../src/printing/ipp/ipp-backend.js';
import { JOB_STATE } from '../../src/printing/ipp/ipp-constants.js';
import { JobStates } from '../../src/printing/ipp/ipp-job-states.js';
import type { Prng } from './prng.js';
import { CHUNK_BYTES, type Scenario } from './scenario.js';
import type { SimPrinter } from './sim-printer.js';
import type { SimSpool, SimWorld } from './sim-world.js';

/** How long the backend waits for a printer that does not answer. */
const REQUEST_TIMEOUT_MS = 10_000;

function unreachable(code: string, what: string): RetryableError {
  return new RetryableError('printer_unreachable', `${what}: ${code}`, { cause: { code } });
}

export class SimBackend implements PrinterBackend {
  readonly reportsDocumentSent = true;
  readonly sendsDocumentBytes = true;
  readonly uri: string;
  /** Lists Get-Jobs answered, for the run's report. */
  listsAnswered = 0;
  private states: { incarnation: number; poller: JobStates } | undefined;

  constructor(
    private readonly printer: SimPrinter,
    private readonly world: SimWorld,
    private readonly spool: SimSpool,
    private readonly rng: Prng,
    private readonly scenario: Scenario,
    /** The ledger's submit attempt count of a printer job name (recorded with the job, for diagnosis). */
    private readonly attemptOf: (jobName: string) => number,
  ) {
    this.uri = `ipp://sim/${printer.plan.id}`;
  }

  /**
   * The poller of this printer's job states: one per agent incarnation, as the agent's IPP backend
   * dies with its process (a request of an older incarnation never completes here).
   */
  private jobStates(): JobStates {
    if (this.states?.incarnation === this.world.incarnation) return this.states.poller;
    const client = {
      getJobAttributes: (id: number) =>
        this.request('Get-Job-Attributes', () => jobAttributes(id, this.printer.jobState(id))),
      getJobs: async () => {
        const open = await this.request('Get-Jobs', () => this.printer.unfinished());
        this.listsAnswered++;
        return open.map((job) => jobAttributes(job.id, job.state));
      },
    };
    const poller = new JobStates(client, JOB_STATE_ATTRIBUTES, () => true);
    this.states = { incarnation: this.world.incarnation, poller };
    return poller;
  }

  async describe(): Promise<PrinterDescription> {
    return {
      uri: this.uri,
      name: this.printer.plan.id,
      makeAndModel: 'simulated printer',
      state: 'idle',
      stateReasons: [],
      documentFormats: ['application/pdf'],
      attributes: {},
    };
  }

  async submit(job: BackendJob): Promise<SubmittedJob> {
    // The bytes the agent kept from the download, else the spool file (after a restart, a resend).
    const document = job.documentBytes ?? this.spool.read(job.documentPath);
    if (!document) throw new PermanentError('spool_missing', `no spool file at ${job.documentPath}`);
    const printer = this.printer;
    let id: number;
    if (printer.plan.createJob) {
      id = await this.request('Create-Job', () =>
        printer.createJob(job.jobName, this.attemptOf(job.jobName)),
      );
      job.onPrinterJobCreated?.(String(id));
      await this.connect('Send-Document');
    } else {
      await this.connect('Print-Job');
      id = printer.printJob(job.jobName, this.attemptOf(job.jobName));
    }
    const handed = this.scenario.variant.sentRule === 'handed';
    await this.transfer(id, document, () => {
      job.onDocumentFlushed?.();
      if (handed) job.onDocumentSent?.();
    });
    // The printer answers the request carrying the document with the job's state at that moment.
    const state = printer.jobState(id).state;
    await this.answer('document');
    if (!handed) job.onDocumentSent?.();
    return { printerJobId: String(id), state };
  }

  async jobState(printerJobId: string): Promise<BackendJobState> {
    return jobStateOf(await this.jobStates().state(Number(printerJobId)));
  }

  async findJobByName(jobName: string): Promise<SubmittedJob | undefined> {
    const id = await this.request('Get-Jobs', () => this.printer.findByName(jobName));
    return id === undefined ? undefined : { printerJobId: String(id) };
  }

  cancel(printerJobId: string): Promise<void> {
    return this.request('Cancel-Job', () => this.printer.cancel(Number(printerJobId)));
  }

  async close(): Promise<void> {}

  /** One request and its answer: `apply` is what the printer does when the request arrives. */
  private async request<T>(what: string, apply: () => T): Promise<T> {
    await this.connect(what);
    const result = apply();
    await this.answer(what);
    return result;
  }

  /** The request travels to the printer; refused while it restarts, unanswered while it stalls. */
  private async connect(what: string): Promise<void> {
    await this.world.delay(this.latency());
    const status = this.printer.status();
    if (status === 'restarting') throw unreachable('ECONNREFUSED', what);
    if (status === 'stalled') {
      await this.world.delay(REQUEST_TIMEOUT_MS);
      throw unreachable('ETIMEDOUT', what);
    }
  }

  /** The answer travels back; it is lost when the printer restarted meanwhile, or by chance. */
  private async answer(what: string): Promise<void> {
    const boot = this.printer.boot;
    await this.world.delay(this.latency());
    if (this.printer.boot !== boot || this.rng.chance(this.printer.plan.answerLossChance)) {
      throw unreachable('ECONNRESET', `${what} answer`);
    }
  }

  /**
   * Streams the document; a cut leaves the printer with what arrived (its cut policy decides).
   * `onFlushed` runs as the last chunk goes to the operating system: a crash of the agent then
   * still delivers it (the kernel sends what it holds), a cut does not. In the `handed` variant
   * the last chunk has not left the process yet: a crash loses it too.
   */
  private async transfer(id: number, document: Buffer, onFlushed: () => void): Promise<void> {
    const printer = this.printer;
    const boot = printer.boot;
    const withOsOnCrash = this.scenario.variant.sentRule === 'contract';
    let withOs: Buffer | undefined;
    const close = this.world.openTransfer(() => {
      if (!withOs) return printer.cut(id);
      printer.receive(id, withOs);
      printer.endDocument(id);
    });
    try {
      for (let offset = 0; offset < document.length; offset += CHUNK_BYTES) {
        const chunk = document.subarray(offset, offset + CHUNK_BYTES);
        const last = offset + CHUNK_BYTES >= document.length;
        if (last) onFlushed();
        if (last && withOsOnCrash) withOs = chunk;
        await this.world.delay(this.rng.int(0, 3));
        if (printer.boot !== boot || this.rng.chance(printer.plan.cutChance)) {
          printer.cut(id);
          throw unreachable('ECONNRESET', 'document transfer');
        }
        printer.receive(id, chunk);
      }
      printer.endDocument(id);
    } finally {
      close();
    }
  }

  private latency(): number {
    const [min, max] = this.scenario.latency;
    return this.rng.int(min, max);
  }
}

/** A job's state as the IPP job attributes a printer answers (read back by jobStateOf). */
function jobAttributes(id: number, state: BackendJobState): Record<string, unknown> {
  return {
    'job-id': id,
    'job-state': JOB_STATE[state.state],
    'job-state-reasons': state.reasons,
    ...(state.pagesCompleted === undefined ? {} : { 'job-impressions-completed': state.pagesCompleted }),
    ...(state.pagesTotal === undefined ? {} : { 'job-impressions': state.pagesTotal }),
    ...(state.kOctets === undefined ? {} : { 'job-k-octets-processed': state.kOctets }),
  };
}
