/**
 * One life of the agent's job path, wired as the agent wires it (agent/connector-parts.ts,
 * agent/bring-up.ts) but over the simulated cloud, printers and spool: the real JobLoop,
 * JobRunner and its steps (small documents held in memory, fetched again after a crash), the
 * claiming download, inline documents claimed on the channel (protocol 3), the JobLedger and
 * Outbox on the run's SQLite database, the OutboxSender (batches on the channel while it is up,
 * else REST), the ChannelRequests over the simulated channel. A crash simply abandons the object graph; the next life is built
 * on the same database.
 */
import {
  type ChannelClaim,
  type ClaimEventSource,
  claimWithEvents,
} from '../../src/agent/jobs/claim-events.js';
import { claimingDownload } from '../../src/agent/jobs/claiming-download.js';
import { InlineDocuments, inlineOrFetch } from '../../src/agent/jobs/inline-documents.js';
import { JobLoop } from '../../src/agent/jobs/job-loop.js';
import type { JobRunner } from '../../src/agent/jobs/job-runner.js';
import { channelOrRest, OutboxSender, type PostEvents } from '../../src/agent/jobs/outbox-sender.js';
import type { AgentConfig } from '../../src/config/agent-schema.js';
import type { Clock } from '../../src/lib/clock.js';
import { createLogger, type Logger, silentLogger } from '../../src/log/logger.js';
import type { PrinterBackend } from '../../src/printing/printer-backend.js';
import type { JobOffer } from '../../src/protocol/connector-channel.js';
import { FINAL_EVENT_KINDS } from '../../src/protocol/connector-channel.js';
import type { AgentDatabase } from '../../src/store/agent-db.js';
import { JobLedger } from '../../src/store/job-ledger.js';
import { Outbox } from '../../src/store/outbox.js';
import type { Prng } from './prng.js';
import type { SimChannel } from './sim-channel.js';
import { type LineReport, LineWatch, WatchedRunner } from './sim-line.js';
import type { SimNetwork } from './sim-network.js';
import type { SimSpool, SimWorld } from './sim-world.js';

/** The job settings of every simulated agent: short waits, so a run covers many retries. */
export const SIM_JOBS: AgentConfig['jobs'] = {
  retry_initial_ms: 100,
  retry_max_ms: 5_000,
  give_up_after_s: 3_600,
  download_attempts: 5,
  status_poll_ms: 500,
};

export interface AgentLife {
  loop: JobLoop;
  ledger: JobLedger;
  outbox: Outbox;
  /** Inline documents of offers, until their download step takes them. */
  inline: InlineDocuments;
  /** Takes an offer as the agent's feed does (JobLoop.offer, unless a broken variant says otherwise). */
  offer: (offer: JobOffer, documentHeld: boolean) => boolean;
}

export interface AgentWiring {
  db: AgentDatabase;
  network: SimNetwork;
  /** The channel of protocol 3 (when the scenario has one). */
  channel: SimChannel;
  backends: ReadonlyMap<string, PrinterBackend>;
  spoolDir: string;
  /** The spool folder's files and the virtual time a spool write takes. */
  spool: SimSpool;
  world: SimWorld;
  rng: Prng;
  /** Documents of at most this many bytes come into memory with no spool file. */
  smallDocumentBytes: number;
  /** The most such documents the agent holds together. */
  heldDocumentsBytes: number;
  /** Broken on purpose (variant `inline-unclaimed`): channel claims answered 200 without being sent. */
  assumeClaims?: boolean;
  /**
   * Broken on purpose (variant `claim-first`): an offer with its document held is claimed on the
   * channel first and recorded in the ledger only once the claim is answered.
   */
  claimFirst?: boolean;
  /**
   * Broken on purpose (variant `claim-events-shared`): a claim of protocol 4 takes the job's
   * events without keeping the outbox sender off the job.
   */
  claimEventsShared?: boolean;
  /** Told when this life has a job's events in two requests at once (the runner marks the job). */
  onEventsInTwoRequests: (jobId: string) => void;
  /** What the watch of the printers' lines reports (sim-line.ts). */
  line: LineReport;
  /**
   * Broken on purpose (variant `line-held`): a job whose document could not be fetched again keeps
   * its turn at the head of its printer's line and tries again there.
   */
  holdLine?: boolean;
  /**
   * Broken on purpose (variant `wait-forgotten`): a resumed job waiting for its document is
   * fetched at once, its recorded next try ignored.
   */
  forgetWaits?: boolean;
}

const clock: Clock = { now: () => Date.now() };

/** With SIM_TRACE set, the agent's log (debug and up), one JSON line each, on stdout. */
function traceLogger(): Logger {
  return createLogger({
    level: 'debug',
    destination: { write: (line: string) => process.stdout.write(line) },
  });
}

/** Builds and starts one life of the agent: resumes the ledger's unfinished jobs. */
export function startAgent(wiring: AgentWiring): AgentLife {
  const { db, network, backends, spoolDir, spool, world, rng } = wiring;
  const logger = process.env.SIM_TRACE ? traceLogger() : silentLogger();
  const ledger = new JobLedger(db, clock);
  const outbox = new Outbox(
    db,
    clock,
    { initialMs: SIM_JOBS.retry_initial_ms, maxMs: SIM_JOBS.retry_max_ms, factor: 2, jitter: 0.5 },
    rng.random,
  );
  const requests = wiring.channel.attach();
  const channelUp = () => wiring.channel.up();
  // Every request of this life that carries events (batches, claims of protocol 4) is watched:
  // a job's events in two of them at once is reported.
  const carrying = inFlightWatch(wiring.onEventsInTwoRequests);
  const post = carrying.batches(
    channelOrRest(
      channelUp,
      (items, signal) => requests.postEvents(items, signal),
      (items) => network.postEvents(items),
    ),
  );
  const sender = new OutboxSender(outbox, post, clock, logger);
  const inline = new InlineDocuments(logger);
  const claimSource: ClaimEventSource = wiring.claimEventsShared
    ? {
        takeForClaim: (jobId) => {
          const pending = outbox.pendingFor(jobId);
          return pending.length > 0 ? pending : undefined;
        },
        settleClaim: (jobId, pending, results) => sender.settleClaim(jobId, pending, results),
      }
    : sender;
  const claim = claimWithEvents(
    claimSource,
    () => wiring.channel.carriesClaimEvents(),
    carrying.claims((jobId, signal, events) => requests.claim(jobId, signal, events)),
  );
  const fetch = inlineOrFetch(
    inline,
    {
      available: channelUp,
      claim: wiring.assumeClaims
        ? async (jobId) => ({ type: 'claim_result', claim_id: 'assumed', job_id: jobId, status: 200 })
        : claim,
    },
    (offer, target, signal) => claimingDownload(network, offer, target, signal, wiring.smallDocumentBytes),
    logger,
  );
  const line = new LineWatch(ledger, wiring.line, clock);
  const emit: ConstructorParameters<typeof JobRunner>[0]['emit'] = (jobId, event) => {
    outbox.add(jobId, event);
    sender.notify({ urgent: FINAL_EVENT_KINDS.has(event.kind) });
  };
  const runner = new WatchedRunner(
    {
      ledger,
      emit,
      download: line.fetch(fetch),
      // A document held in memory written to its spool file in one write, which a crash may tear.
      writeSpool: async (target, bytes) => {
        spool.truncate(target);
        spool.append(target, bytes);
        try {
          await world.delay(rng.int(0, 2));
        } finally {
          spool.closed(target);
        }
      },
      heldDocumentsBytes: wiring.heldDocumentsBytes,
      discardEvents: (jobId) => outbox.discardJob(jobId),
      inline,
      jobs: SIM_JOBS,
      spoolDir,
      clock,
      logger,
      random: rng.random,
    },
    line,
    wiring.holdLine === true,
    wiring.forgetWaits === true,
  );
  const loop = new JobLoop({
    ledger,
    runner,
    emit,
    backendFor: (printerId) => backends.get(printerId),
    spoolDir,
    logger,
  });
  loop.start();
  sender.start();
  const offer = (job: JobOffer, documentHeld: boolean): boolean => {
    if (!wiring.claimFirst || !documentHeld || !channelUp() || ledger.get(job.job_id))
      return loop.offer(job, documentHeld);
    requests.claim(job.job_id, new AbortController().signal).then(
      () => loop.offer(job, documentHeld),
      () => {},
    );
    return true;
  };
  return { loop, ledger, outbox, inline, offer };
}

/**
 * Counts, per job, the requests of one life in flight that carry its events; `report` hears of a
 * job whose events go out while another request with them is still in flight.
 */
function inFlightWatch(report: (jobId: string) => void) {
  const inFlight = new Map<string, number>();
  async function watched<T>(jobIds: Set<string>, send: () => Promise<T>): Promise<T> {
    for (const jobId of jobIds) {
      const n = inFlight.get(jobId) ?? 0;
      if (n > 0) report(jobId);
      inFlight.set(jobId, n + 1);
    }
    try {
      return await send();
    } finally {
      for (const jobId of jobIds) inFlight.set(jobId, (inFlight.get(jobId) ?? 1) - 1);
    }
  }
  return {
    batches:
      (post: PostEvents): PostEvents =>
      (items, signal) =>
        watched(new Set(items.map((item) => item.job_id)), () => post(items, signal)),
    claims:
      (claim: ChannelClaim): ChannelClaim =>
      (jobId, signal, events) =>
        events && events.length > 0
          ? watched(new Set([jobId]), () => claim(jobId, signal, events))
          : claim(jobId, signal),
  };
}
