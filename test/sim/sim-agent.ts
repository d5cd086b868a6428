/**
 * One life of the agent's job path, wired as the agent wires it (agent/connector-parts.ts,
 * agent/bring-up.ts) but over the simulated cloud, printers and spool: the real JobLoop,
 * JobRunner and its steps (small documents held in memory, fetched again after a crash), the
 * claiming download, inline documents claimed on the channel (protocol 3), the JobLedger and
 * Outbox on the run's SQLite database, the OutboxSender (batches on the channel while it is up,
 * else REST), the ChannelRequests over the simulated channel. A crash simply abandons the object graph; the next life is built
 * on the same database.
 */
import { claimingDownload } from '../../src/agent/jobs/claiming-download.js';
import { InlineDocuments, inlineOrFetch } from '../../src/agent/jobs/inline-documents.js';
import { JobLoop } from '../../src/agent/jobs/job-loop.js';
import type { JobRunner } from '../../src/agent/jobs/job-runner.js';
import { channelOrRest, OutboxSender } from '../../src/agent/jobs/outbox-sender.js';
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
  /** What the watch of the printers' lines reports (sim-line.ts). */
  line: LineReport;
  /**
   * Broken on purpose (variant `line-held`): a job whose document could not be fetched again keeps
   * its turn at the head of its printer's line and tries again there.
   */
  holdLine?: boolean;
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
  const post = channelOrRest(
    channelUp,
    (items, signal) => requests.postEvents(items, signal),
    (items) => network.postEvents(items),
  );
  const sender = new OutboxSender(outbox, post, clock, logger);
  const inline = new InlineDocuments(logger);
  const fetch = inlineOrFetch(
    inline,
    {
      available: channelUp,
      claim: wiring.assumeClaims
        ? async (jobId) => ({ type: 'claim_result', claim_id: 'assumed', job_id: jobId, status: 200 })
        : (jobId, signal) => requests.claim(jobId, signal),
    },
    (offer, target, signal) => claimingDownload(network, offer, target, signal, wiring.smallDocumentBytes),
    logger,
  );
  const line = new LineWatch(ledger, wiring.line);
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
