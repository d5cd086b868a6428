/**
 * The cloud as the connector protocol describes it (docs/connector-protocol.md): jobs arrive
 * and are offered until the connector takes them; a job's documents are downloaded whole or
 * resumed with Range; events are idempotent by event_id, applied only when their seq is above
 * the last applied one and the job is not final. Every event the cloud received is kept, so the
 * invariants can check that none was lost or doubled.
 */
import { createHash } from 'node:crypto';
import type {
  JobEvent,
  JobEventBatchItem,
  JobEventItemResult,
  JobOffer,
} from '../../src/protocol/connector-channel.js';
import type { JobPlan } from './scenario.js';

export type CloudJobState = 'pending' | 'processing' | 'printing' | 'completed' | 'failed' | 'cancelled';

export interface CloudJob {
  plan: JobPlan;
  document: Buffer;
  offer: JobOffer;
  arrived: boolean;
  /** The connector took the job (a claiming download, a claim, or one of its events). */
  claimed: boolean;
  /** A claim reached the cloud while the agent's ledger did not hold the job. */
  claimedUnrecorded: boolean;
  /** A printer heard of the job (Create-Job or Print-Job) before the cloud had it claimed. */
  unclaimedAtPrinter: boolean;
  /** One life of the agent had this job's events in two requests at once (batches, claims). */
  eventsInTwoRequests: boolean;
  state: CloudJobState;
  lastApplied: number;
  /** Every distinct event received, by event_id. */
  events: Map<string, JobEvent>;
  /** Deliveries of an event_id already known (acknowledged and ignored). */
  repeats: number;
  /** Downloads of the document the cloud answered. */
  downloads: number;
  /** The agent once had the whole document (checked): later downloads fetch it again. */
  servedWhole: boolean;
  /** Downloads after the agent once had the whole document (a restart lost it from memory). */
  refetches: number;
  /** Downloads answered 410 because the document was gone. */
  goneAnswers: number;
  /** Fetches of the document again (a crash lost it) that failed, each a wait out of the printer's line. */
  refetchFailures: number;
  /** Fetches of the document after a failed one within one turn at the head of the line (sim-line.ts). */
  lineHeld: number;
  /** Fetches of the document again before the next try its ledger row recorded (sim-line.ts). */
  fetchedEarly: number;
  message: string | undefined;
}

const FINAL_KINDS: Record<string, CloudJobState> = {
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
};

export class SimCloud {
  readonly jobs = new Map<string, CloudJob>();
  /** Whether the agent's ledger holds a job now (the run's database); asked at every claim. */
  ledgerHolds: (jobId: string) => boolean = () => true;

  constructor(plans: readonly JobPlan[]) {
    plans.forEach((plan, index) => {
      const document = documentBytes(plan.size, index);
      this.jobs.set(plan.jobId, {
        plan,
        document,
        offer: offerOf(plan, document),
        arrived: false,
        claimed: false,
        claimedUnrecorded: false,
        unclaimedAtPrinter: false,
        eventsInTwoRequests: false,
        state: 'pending',
        lastApplied: 0,
        events: new Map(),
        repeats: 0,
        downloads: 0,
        servedWhole: false,
        refetches: 0,
        goneAnswers: 0,
        refetchFailures: 0,
        lineHeld: 0,
        fetchedEarly: 0,
        message: undefined,
      });
    });
  }

  /** Offers the cloud makes now: jobs that arrived and that no connector took yet. */
  openOffers(): JobOffer[] {
    return [...this.jobs.values()]
      .filter((j) => j.arrived && !j.claimed && j.state === 'pending')
      .map((j) => j.offer);
  }

  job(jobId: string): CloudJob {
    const job = this.jobs.get(jobId);
    if (!job) throw new Error(`simulation: unknown job ${jobId}`);
    return job;
  }

  /** The connector claims the job (a claiming download, a claim, an event): noted when its ledger lacks it. */
  claim(jobId: string): void {
    const job = this.job(jobId);
    if (!this.ledgerHolds(jobId)) job.claimedUnrecorded = true;
    job.claimed = true;
  }

  /** A printer heard of the job (its name); noted when the cloud did not have it claimed yet. */
  printerHeard(jobName: string): void {
    const job = this.jobs.get(jobName.replace(/^printrelay-/, ''));
    if (job && !job.claimed) job.unclaimedAtPrinter = true;
  }

  /** Applies a batch of events, each as the single-event route would. */
  applyEvents(items: readonly JobEventBatchItem[]): JobEventItemResult[] {
    return items.map(({ job_id, event }) => {
      const job = this.jobs.get(job_id);
      if (!job) return { event_id: event.event_id, status: 404, error: 'not_found', message: 'unknown job' };
      this.claim(job_id);
      if (job.events.has(event.event_id)) {
        job.repeats++;
        return { event_id: event.event_id, status: 204 };
      }
      job.events.set(event.event_id, event);
      const final = job.state === 'completed' || job.state === 'failed' || job.state === 'cancelled';
      if (final || event.seq <= job.lastApplied) return { event_id: event.event_id, status: 204 };
      job.lastApplied = event.seq;
      const ends = FINAL_KINDS[event.kind];
      if (ends) {
        job.state = ends;
        job.message = event.message;
      } else if (event.kind === 'received' || event.kind === 'downloading') job.state = 'processing';
      else if (event.kind === 'printing' || event.kind === 'progress') job.state = 'printing';
      return { event_id: event.event_id, status: 204 };
    });
  }
}

/** The document of a job: bytes 1..200, never the byte a torn spool write leaves (0xee). */
function documentBytes(size: number, index: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = 1 + ((i * 7 + index * 13) % 200);
  return bytes;
}

function offerOf(plan: JobPlan, document: Buffer): JobOffer {
  return {
    job_id: plan.jobId,
    printer_id: plan.printerId,
    tp_id: 1,
    document: {
      url: `/documents/${plan.jobId}`,
      size: document.length,
      sha256: createHash('sha256').update(document).digest('hex'),
      extension: 'pdf',
      content_type: 'application/pdf',
      name: `${plan.jobId}.pdf`,
    },
    ticket: { copies: 1 },
    user: { id: 'user-1', email: 'user@example.com', name: 'User' },
    created: new Date(0).toISOString(),
  };
}
