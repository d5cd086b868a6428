/**
 * Release benchmark: pull printing against printing straight to the printer, in the same run on
 * the same parts (bench/support/release-rig.ts): the emulator, the agent with a built-in
 * VirtualPrinter as "Demo Printer" and a release station on a socket:// reader, swiped exactly as
 * `printrelay swipe` does.
 *
 *   npm run bench:release     (BENCH_ROUNDS=5, BENCH_RELEASE_JOBS=100, BENCH_SWIPES=30)
 *
 * BENCH_PARALLEL_RELEASES sets the station's parallel_releases (default: the config's default).
 *
 * 1. Latency, one job at a time, the two paths alternated: swipe -> first byte at the printer
 *    (the virtual printer's document file appearing), against /sfapi Print -> first byte.
 *    Uploads happen before the clock starts on both paths.
 * 2. Volume, BENCH_ROUNDS rounds, each one of each path back to back, the order alternating:
 *    BENCH_RELEASE_JOBS held jobs released by ONE swipe until the last document is printed,
 *    against as many /sfapi Print calls (all at once) until the last document is printed. Per
 *    round and path: jobs/s, the process's CPU per job (emulator, agent and app share it) and
 *    the HTTP requests per job by kind; then medians and spread, the round's ratio, and the
 *    ceiling the CPU puts on it (direct CPU per job / release CPU per job: a process short of
 *    CPU cannot release faster than that against direct printing).
 *    After each round, the floor of the spec's wire in the same process: BENCH_RELEASE_JOBS
 *    PrintJob exchanges with their progress streams in bare node (bench/support/bare-print-job.ts:
 *    client and server, 16 at once, as the station's default parallel_releases), their CPU per
 *    exchange, and the ceiling that cost alone would leave the ratio: direct / (direct + one
 *    bare exchange) CPU per job.
 * 3. With BENCH_PROFILE_DIR: one more round of each path under the V8 profiler, written as
 *    direct.cpuprofile and release.cpuprofile (read them with bench/profile-summary.ts).
 * 4. Unless BENCH_TRACE=0: fresh parts logging at info level into memory, one round of each path
 *    traced step by step (phaseTable): where the time goes. Logging slows both paths; the
 *    trace is for the shape of a path, not for the ratio.
 * The last line is `ratio <median of the rounds' release/direct throughput>`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { sendSwipe } from '../src/cardreader/socket/socket-reader.js';
import { DEMO } from '../src/config/load-config.js';
import { sleep } from '../src/lib/abort.js';
import { silentLogger } from '../src/log/logger.js';
import { barePrintJobClient, cpuOf, startBarePrintJobServer } from './support/bare-print-job.js';
import { type ReleaseRig, startReleaseRig } from './support/release-rig.js';
import {
  phaseTable,
  RequestTap,
  requestsPerJob,
  type ServedRequest,
  TraceLog,
} from './support/release-trace.js';
import { median, percentile } from './support/stats.js';

const swipes = Number(process.env.BENCH_SWIPES ?? 30);
const releaseJobs = Number(process.env.BENCH_RELEASE_JOBS ?? 100);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const profileDir = process.env.BENCH_PROFILE_DIR;
const traced = process.env.BENCH_TRACE !== '0';
/** The station's parallel_releases; its default when unset. */
const parallelReleases = process.env.BENCH_PARALLEL_RELEASES
  ? Number(process.env.BENCH_PARALLEL_RELEASES)
  : undefined;

type Path = 'direct' | 'release';

/** One volume round of one path. */
interface Round {
  seconds: number;
  cpuMsPerJob: number;
  requests: ServedRequest[];
  t0: number;
}

/** Uploads a file ahead of time; the returned function is the timed /sfapi Print call. */
async function staged(rig: ReleaseRig, printerId: string): Promise<() => Promise<{ jobid: string }>> {
  const { fileid, sasUri } = await rig.sfapi.prepareUpload();
  await rig.sfapi.upload(sasUri, rig.file, () => {});
  return () => rig.sfapi.print({ fileid, type: 'pdf', alias: 'bench.pdf', printerid: printerId });
}

/** Holds `n` documents in the card's pull-printing queue. */
async function hold(rig: ReleaseRig, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await (await staged(rig, rig.queueId))();
}

/** Hooks around the timed part of a round (the profiler). */
interface Around {
  before(): Promise<void>;
  after(): Promise<void>;
}

/**
 * Runs `jobs` jobs through a path; the clock runs from the Print calls (or the swipe) until the
 * last document reached the printer, after the uploads.
 */
async function volume(
  rig: ReleaseRig,
  tap: RequestTap,
  path: Path,
  jobs: number,
  around?: Around,
): Promise<Round> {
  const prints: (() => Promise<unknown>)[] = [];
  if (path === 'direct') for (let i = 0; i < jobs; i++) prints.push(await staged(rig, rig.printerId));
  else await hold(rig, jobs);
  const ended = path === 'release' ? rig.sessionEnd() : undefined;
  const done = rig.arrivals.after(jobs);
  await around?.before();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  if (path === 'direct') await Promise.all(prints.map((print) => print()));
  else await sendSwipe(rig.reader, DEMO.user.card);
  const seconds = ((await done) - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await around?.after();
  const requests = tap.since(t0);
  if (ended) {
    const summary = await ended;
    if (summary.printed.length !== jobs) throw new Error(`one swipe released ${summary.printed.length} jobs`);
  }
  // The last jobs' completion events are still on their way: let them land outside the next round.
  await sleep(300);
  return { seconds, cpuMsPerJob: (cpu.user + cpu.system) / 1000 / jobs, requests, t0 };
}

/** One job at a time through a path: ms from the call (or swipe) to the document at the printer. */
async function latency(rig: ReleaseRig, path: Path): Promise<number> {
  let start: () => Promise<unknown>;
  let ended: Promise<unknown> | undefined;
  if (path === 'direct') start = await staged(rig, rig.printerId);
  else {
    await hold(rig, 1);
    ended = rig.sessionEnd();
    start = () => sendSwipe(rig.reader, DEMO.user.card);
  }
  const arrived = rig.arrivals.after(1);
  const t0 = performance.now();
  await start();
  const ms = (await arrived) - t0;
  await ended;
  return ms;
}

/**
 * Runs a round of `path` with the V8 profiler on while the clock runs, and writes
 * `<dir>/<path>.cpuprofile`.
 */
async function profiled(rig: ReleaseRig, tap: RequestTap, path: Path, dir: string): Promise<string> {
  const session = new Session();
  session.connect();
  const file = join(dir, `${path}.cpuprofile`);
  await volume(rig, tap, path, releaseJobs, {
    before: async () => {
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    },
    after: async () => {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(file, JSON.stringify(profile), { mode: 0o600 });
    },
  });
  session.disconnect();
  return file;
}

function spreadLine(label: string, values: number[], digits: number, unit: string): string {
  const sorted = [...values].sort((a, b) => a - b);
  const f = (v: number) => v.toFixed(digits);
  return `${label} median ${f(median(sorted))} ${unit} (min ${f(sorted[0]!)}, max ${f(sorted.at(-1)!)}, ${sorted.length} rounds)`;
}

function load(): string {
  return loadavg()
    .map((v) => v.toFixed(2))
    .join(' ');
}

async function measure(tap: RequestTap, rig: ReleaseRig): Promise<number[]> {
  // Warm both paths up (connections, JIT, prepared statements) before measuring.
  for (let i = 0; i < 5; i++) for (const path of ['direct', 'release'] as const) await latency(rig, path);
  await volume(rig, tap, 'direct', releaseJobs);
  await volume(rig, tap, 'release', releaseJobs);

  const lat: Record<Path, number[]> = { direct: [], release: [] };
  for (let i = 0; i < swipes; i++)
    for (const path of ['direct', 'release'] as const) lat[path].push(await latency(rig, path));
  for (const path of ['direct', 'release'] as const) {
    const sorted = lat[path].sort((a, b) => a - b);
    const what = path === 'direct' ? '/sfapi Print' : 'swipe       ';
    console.log(
      `latency ${path.padEnd(7)} ${what} -> first byte at the printer: p50 ${percentile(sorted, 50).toFixed(1)} ms, p95 ${percentile(sorted, 95).toFixed(1)} ms (${sorted.length} runs)`,
    );
  }
  console.log(
    `latency ratio release/direct at p50: ${(median(lat.release) / median(lat.direct)).toFixed(2)}`,
  );

  const results: Record<Path, Round[]> = { direct: [], release: [] };
  const ratios: number[] = [];
  const wire = await startBarePrintJobServer();
  const bare = barePrintJobClient(wire.port, 'Basic YmVuY2g6YmVuY2g=');
  const wireMs: number[] = [];
  await cpuOf(bare.exchange, releaseJobs, 16);
  for (let r = 0; r < rounds; r++) {
    const order: Path[] = r % 2 === 0 ? ['direct', 'release'] : ['release', 'direct'];
    const loadAt = load();
    for (const path of order) results[path].push(await volume(rig, tap, path, releaseJobs));
    wireMs.push((await cpuOf(bare.exchange, releaseJobs, 16)) / 1000 / releaseJobs);
    const [d, rel] = [results.direct[r]!, results.release[r]!];
    ratios.push(d.seconds / rel.seconds);
    console.log(
      `round ${r + 1} (${order.join(' first, ')} second; load ${loadAt}): direct ${(releaseJobs / d.seconds).toFixed(1)} jobs/s, ${d.cpuMsPerJob.toFixed(2)} ms CPU/job; release ${(releaseJobs / rel.seconds).toFixed(1)} jobs/s, ${rel.cpuMsPerJob.toFixed(2)} ms CPU/job; ratio ${ratios.at(-1)!.toFixed(2)}`,
    );
  }
  for (const path of ['direct', 'release'] as const) {
    const rs = results[path];
    const label =
      path === 'direct'
        ? `direct  ${releaseJobs} jobs by /sfapi Print:`
        : `release ${releaseJobs} held jobs, one swipe:`;
    console.log(
      spreadLine(
        `${label} jobs/s`,
        rs.map((x) => releaseJobs / x.seconds),
        1,
        'jobs/s',
      ),
    );
    console.log(
      spreadLine(
        `${label} CPU/job`,
        rs.map((x) => x.cpuMsPerJob),
        2,
        'ms',
      ),
    );
    console.log(`${label} requests/job ${requestsPerJob(rs.at(-1)!.requests, releaseJobs)} (last round)`);
  }
  // A process short of CPU runs at (its CPU share) / (CPU per job): that bounds the ratio.
  const cpuBound = results.direct.map((d, r) => d.cpuMsPerJob / results.release[r]!.cpuMsPerJob);
  console.log(spreadLine('CPU-bound ceiling of the ratio (direct / release CPU per job)', cpuBound, 2, ''));
  bare.close();
  await wire.close();
  console.log(
    spreadLine('wire floor: one bare-node PrintJob exchange, client and server, CPU', wireMs, 3, 'ms'),
  );
  const wireBound = results.direct.map((d, r) => d.cpuMsPerJob / (d.cpuMsPerJob + wireMs[r]!));
  console.log(spreadLine('ceiling the wire alone leaves (direct / (direct + wire) CPU)', wireBound, 2, ''));
  console.log(spreadLine('ratio release/direct', ratios, 2, ''));
  return ratios;
}

async function trace(tap: RequestTap, holder: { rig?: ReleaseRig }): Promise<void> {
  const log = new TraceLog();
  const rig = await startReleaseRig(log.logger, parallelReleases);
  holder.rig = rig;
  try {
    for (const path of ['direct', 'release'] as const) await volume(rig, tap, path, releaseJobs);
    for (const path of ['direct', 'release'] as const) {
      const arrivalsBefore = rig.arrivals.times.length;
      const round = await volume(rig, tap, path, releaseJobs);
      const arrivals = rig.arrivals.times.slice(arrivalsBefore);
      console.log(`trace ${path} (info logging on; ${(releaseJobs / round.seconds).toFixed(1)} jobs/s):`);
      for (const line of phaseTable(log.since(round.t0), round.requests, arrivals, round.t0))
        console.log(line);
    }
  } finally {
    await rig.stop();
  }
}

async function main(): Promise<void> {
  const holder: { rig?: ReleaseRig } = {};
  const tap = new RequestTap(() => holder.rig?.emulator.app.server);
  try {
    console.log(`load average at start: ${load()}`);
    const rig = await startReleaseRig(silentLogger(), parallelReleases);
    holder.rig = rig;
    let ratios: number[];
    try {
      ratios = await measure(tap, rig);
      if (profileDir) {
        mkdirSync(profileDir, { recursive: true, mode: 0o700 });
        for (const path of ['direct', 'release'] as const) {
          const file = await profiled(rig, tap, path, profileDir);
          console.log(
            `profile ${path}: ${file} (npx tsx bench/profile-summary.ts ${file} 25 per=${releaseJobs})`,
          );
        }
      }
    } finally {
      await rig.stop();
    }
    if (traced) await trace(tap, holder);
    console.log(`load average at end: ${load()}`);
    console.log(`ratio ${median(ratios).toFixed(2)}`);
  } finally {
    tap.close();
  }
}

await main();
