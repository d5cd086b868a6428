/**
 * One seeded run: the seed draws the scenario; the scheduler then repeats "let every ready
 * continuation run, then fire the next timer" on virtual time, and at each of those points the
 * seed may crash the agent (a new life starts on the same database and spool after a pause).
 * Jobs arrive and are offered (again after a restart, after an outage, sometimes twice); once
 * every job ended and the outbox is empty, or the virtual time limit passed, the invariants are
 * checked. Same seed, same run.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { vi } from 'vitest';
import { offerWithDocument } from '../../src/agent/jobs/inline-documents.js';
import type { PrinterBackend } from '../../src/printing/printer-backend.js';
import { defaultBackoff } from '../../src/lib/backoff.js';
import { systemClock } from '../../src/lib/clock.js';
import { openSqlite } from '../../src/lib/sqlite.js';
import { reuseStatements } from '../../src/lib/sqlite-statements.js';
import { type AgentDatabase, openAgentDatabase } from '../../src/store/agent-db.js';
import { JobLedger } from '../../src/store/job-ledger.js';
import { Outbox } from '../../src/store/outbox.js';
import { checkInvariants, type Violation } from './invariants.js';
import { Prng } from './prng.js';
import { DEFAULT_VARIANT, drawScenario, type SimVariant } from './scenario.js';
import { type AgentLife, startAgent } from './sim-agent.js';
import { SimBackend } from './sim-backend.js';
import { SimCloud } from './sim-cloud.js';
import { type ChannelCounts, SimChannel } from './sim-channel.js';
import { SimNetwork } from './sim-network.js';
import { SimPrinter } from './sim-printer.js';
import { SIM_START, SimSpool, SimWorld } from './sim-world.js';

/** How long after the last fault a run may take to drain before unfinished jobs count as stuck. */
const DRAIN_LIMIT_MS = 15 * 60_000;

export interface SeedResult {
  seed: number;
  violations: Violation[];
  crashes: number;
  steps: number;
  virtualMs: number;
  /** The run's outcome in one string (events at the cloud, prints), for replay checks. */
  fingerprint: string;
  /** Downloads of a document the agent had once whole (fetched again after a crash). */
  refetches: number;
  /** Downloads the cloud answered 410 (the document gone). */
  goneAnswers: number;
  /** Fetches of a document again after a crash that failed (the job left its printer's line to wait). */
  refetchFailures: number;
  /** Get-Jobs lists that answered the polls of several jobs at one printer. */
  jobLists: number;
  /** What the channel of protocol 3 carried. */
  channel: ChannelCounts;
}

/** The spool folder the agent's JobLoop creates (the documents themselves live in SimSpool). */
const spoolDir = join(tmpdir(), `printrelay-sim-${process.pid}`);

/** Removes the spool folder the runs' job loops created. */
export function removeSpoolDir(): void {
  rmSync(spoolDir, { recursive: true, force: true });
}

/** An empty agent database with every migration applied, copied for each run (faster than migrating). */
let template: Buffer | undefined;

function freshDatabase(): AgentDatabase {
  if (!template) {
    const migrated = openAgentDatabase(':memory:');
    template = migrated.serialize();
    migrated.close();
  }
  const db = reuseStatements(openSqlite(template));
  db.pragma('foreign_keys = ON');
  return db;
}

/** Lets every continuation that is ready run (microtasks drain before the next macrotask). */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export async function runSeed(seed: number, variant: SimVariant = DEFAULT_VARIANT): Promise<SeedResult> {
  const root = new Prng(seed);
  const scenario = drawScenario(seed, root.fork(), variant);
  const faults = root.fork();
  const agentRng = root.fork();
  if (process.env.SIM_TRACE) console.log(JSON.stringify(scenario, null, 1));
  mkdirSync(spoolDir, { recursive: true, mode: 0o700 });
  vi.useFakeTimers({
    now: SIM_START,
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
  });
  const db = freshDatabase();
  try {
    const world = new SimWorld(faults);
    const spool = new SimSpool();
    const cloud = new SimCloud(scenario.jobs);
    const network = new SimNetwork(cloud, world, spool, faults, scenario);
    const channel = new SimChannel(cloud, network, world, faults, scenario);
    const printers = scenario.printers.map((plan) => new SimPrinter(plan, world, SIM_START));
    const ledger = new JobLedger(db, systemClock);
    cloud.ledgerHolds = (jobId) => ledger.get(jobId) !== undefined;
    for (const printer of printers) printer.onJobCreated = (name) => cloud.printerHeard(name);
    const attemptOf = (jobName: string) => ledger.get(jobName.replace(/^printrelay-/, ''))?.attempts ?? 0;
    const simBackends = printers.map((p) => new SimBackend(p, world, spool, faults, scenario, attemptOf));
    const backends = new Map<string, PrinterBackend>(
      simBackends.map((b, i) => [printers[i]?.plan.id ?? '', b]),
    );
    let agent: AgentLife | undefined;
    const offer = (jobId: string) => {
      if (network.down()) world.at(network.upAgainAt(), () => offer(jobId));
      else if (agent) {
        const life = agent;
        // On protocol 3 a small document comes with the offer (its frame sometimes lost or altered).
        const document = channel.inlineDocument(jobId);
        offerWithDocument((o, held) => life.offer(o, held), life.inline, cloud.job(jobId).offer, document);
      }
    };
    const boot = () => {
      if (process.env.SIM_TRACE) console.log(`--- agent starts at ${world.elapsed()} ms`);
      agent = startAgent({
        db,
        network,
        channel,
        backends,
        spoolDir,
        spool,
        world,
        rng: agentRng,
        smallDocumentBytes: scenario.smallDocumentBytes,
        heldDocumentsBytes: scenario.heldDocumentsBytes,
        assumeClaims: variant.claimRule === 'assumed',
        claimFirst: variant.claimRule === 'first',
        claimEventsShared: variant.claimEvents === 'shared',
        onEventsInTwoRequests: (jobId) => {
          cloud.job(jobId).eventsInTwoRequests = true;
        },
        line: {
          held: (jobId) => cloud.job(jobId).lineHeld++,
          refetchFailed: (jobId) => cloud.job(jobId).refetchFailures++,
          early: (jobId) => cloud.job(jobId).fetchedEarly++,
        },
        holdLine: variant.lineRule === 'hold',
        forgetWaits: variant.waitRule === 'forgotten',
      });
      for (const open of cloud.openOffers()) offer(open.job_id);
    };
    for (const plan of scenario.jobs) {
      world.at(SIM_START + plan.arriveAt, () => {
        cloud.job(plan.jobId).arrived = true;
        offer(plan.jobId);
        if (faults.chance(scenario.offerDuplicateChance)) {
          world.at(world.now() + faults.int(0, 500), () => offer(plan.jobId));
        }
      });
    }
    boot();
    const lastFault = Math.max(
      scenario.faultHorizonMs,
      ...scenario.outages.map((w) => w.until),
      ...scenario.printers.flatMap((p) => [...p.restarts, ...p.stalls].map((w) => w.until)),
    );
    const drained = () =>
      agent !== undefined &&
      world.elapsed() > lastFault &&
      [...cloud.jobs.values()].every((j) => ['completed', 'failed', 'cancelled'].includes(j.state)) &&
      agent.ledger.unfinished().length === 0 &&
      agent.outbox.size() === 0;
    let crashes = 0;
    let steps = 0;
    let before = world.now();
    for (;;) {
      await settle();
      if (world.now() < before) throw new Error(`simulation: virtual time went back (seed ${seed})`);
      before = world.now();
      if (drained() || world.elapsed() > lastFault + DRAIN_LIMIT_MS) break;
      const crashNow =
        agent !== undefined &&
        crashes < scenario.maxCrashes &&
        world.elapsed() < scenario.faultHorizonMs &&
        faults.chance(scenario.crashChance);
      if (crashNow) {
        crashes++;
        if (process.env.SIM_TRACE) console.log(`--- agent crashes at ${world.elapsed()} ms`);
        agent = undefined;
        spool.tear(faults, scenario.tornWriteChance);
        world.crash();
        world.at(world.now() + faults.int(1, 2_000), boot);
        continue;
      }
      vi.advanceTimersToNextTimer();
      steps++;
    }
    for (const printer of printers) printer.settle();
    const violations = checkInvariants({
      cloud,
      printers,
      ledger,
      outbox: new Outbox(db, systemClock, defaultBackoff),
    });
    const fingerprint = JSON.stringify({
      jobs: [...cloud.jobs.values()].map((j) => [
        j.plan.jobId,
        j.state,
        [...j.events.values()].map((e) => `${e.seq}:${e.kind}:${e.at}`),
      ]),
      prints: printers.flatMap((p) =>
        p.prints.map((x) => [x.printer, x.printerJobId, x.jobName, x.bytes.length]),
      ),
      steps,
      crashes,
    });
    const cloudJobs = [...cloud.jobs.values()];
    return {
      seed,
      violations,
      crashes,
      steps,
      virtualMs: world.elapsed(),
      fingerprint,
      refetches: cloudJobs.reduce((n, j) => n + j.refetches, 0),
      goneAnswers: cloudJobs.reduce((n, j) => n + j.goneAnswers, 0),
      refetchFailures: cloudJobs.reduce((n, j) => n + j.refetchFailures, 0),
      jobLists: simBackends.reduce((n, b) => n + b.listsAnswered, 0),
      channel: channel.counts,
    };
  } finally {
    vi.clearAllTimers();
    vi.useRealTimers();
    db.close();
  }
}
