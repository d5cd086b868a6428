/**
 * Where the release path's CPU goes, part by part: bench:release's two paths (100 held jobs
 * released by one swipe against 100 /sfapi Prints, same printer) with the emulator and the agent
 * (with its release station) each in a node process of its own under `--cpu-prof`
 * (bench/support/release-part-child.ts), so each profile is one part's and marks its idle time.
 * This process holds the VirtualPrinter, the app and the swipes.
 *
 *   BENCH_PROFILE_DIR=<dir> npx tsx bench/release-split.ts   (BENCH_ROUNDS=4, BENCH_RELEASE_JOBS=100)
 *
 * Pinned mode (bench/support/pinning.ts; on by default with 2 cores and taskset, BENCH_PIN=0 turns
 * it off): the agent alone on one core, the emulator and this process (printer, app) on the
 * other, so the agent's profile is its own work on a core no other part of the rig competes for.
 *
 * After one warm-up round per path, BENCH_ROUNDS rounds of each, the order alternating. A
 * round's window runs from the Print calls (or the swipe) until the last document is printed,
 * the station's session ended (release) and 300 ms more for the final events. Per part and path:
 * the CPU per job read from /proc over the windows (and the bench's own, which holds the printer
 * and, on the direct path, the app's Print calls), and from the profile the busy and idle
 * microseconds per job inside the windows (idle: `(idle)`, `(program)`, `[node:inspector]`),
 * busy by area (bench/support/profile-areas.ts) and the top functions. The profiles stay in the
 * dir (one folder per part), with the windows per path in windows.json.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { sendSwipe } from '../src/cardreader/socket/socket-reader.js';
import { DEMO } from '../src/config/load-config.js';
import { sleep } from '../src/lib/abort.js';
import { silentLogger } from '../src/log/logger.js';
import { VirtualPrinter } from '../src/printing/virtual/virtual-printer.js';
import { freePort } from '../test/support/peers.js';
import { writePdf } from '../test/support/pdf.js';
import { printerIdOf, QUEUE_PRINTER, signIn } from '../test/e2e/pull-printing-support.js';
import type { CpuProfile } from './profile-summary.js';
import { chargeWindows, type Window } from './support/profile-areas.js';
import { pinPlan, pinProcess } from './support/pinning.js';
import { agentNodeEnv, agentNodeFlags, cpuSecondsOf } from './support/processes.js';
import { ArrivalWatch } from './support/release-rig.js';

const jobs = Number(process.env.BENCH_RELEASE_JOBS ?? 100);
const rounds = Number(process.env.BENCH_ROUNDS ?? 4);
const profileDir = process.env.BENCH_PROFILE_DIR ?? mkdtempSync(join(tmpdir(), 'release-split-'));
const parallel = process.env.BENCH_PARALLEL_RELEASES;
type Path = 'direct' | 'release';
type PartName = 'emulator' | 'agent';

/** A child part: its process and its output lines, awaited by pattern. */
class Part {
  private out = '';
  private waiters: { pattern: RegExp; resolve: (m: RegExpExecArray) => void }[] = [];
  constructor(readonly child: ChildProcess) {
    child.stdout?.on('data', (chunk: Buffer) => {
      this.out += chunk.toString();
      this.waiters = this.waiters.filter((w) => {
        const found = w.pattern.exec(this.out);
        if (found) this.out = this.out.slice(found.index + found[0].length);
        if (found) w.resolve(found);
        return !found;
      });
    });
    child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  }
  /** The next output matching `pattern` (output before it is dropped). */
  next(pattern: RegExp): Promise<RegExpExecArray> {
    return new Promise((resolve) => {
      this.waiters.push({ pattern, resolve });
      this.child.stdout?.emit('data', Buffer.alloc(0));
    });
  }
  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await exited;
  }
}

function startChild(name: PartName, args: string[], flags: string[], env: Record<string, string> = {}): Part {
  const script = join(import.meta.dirname, 'support', 'release-part-child.ts');
  // One folder per part: node writes a profile per thread (tsx's loader runs in one of its own).
  const profile = ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, name)}`];
  return new Part(
    spawn(process.execPath, [...flags, ...profile, '--import', 'tsx', script, name, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    }),
  );
}

/** Times the process's main thread went to sleep waiting (its voluntary context switches). */
function sleepsOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
}

const nowUs = () => Number(process.hrtime.bigint() / 1000n);
const load = () =>
  loadavg()
    .map((v) => v.toFixed(2))
    .join(' ');

async function main(): Promise<void> {
  mkdirSync(profileDir, { recursive: true, mode: 0o700 });
  const work = mkdtempSync(join(tmpdir(), 'bench-release-split-'));
  const stops: (() => Promise<void>)[] = [async () => rmSync(work, { recursive: true, force: true })];
  console.log(`load average at start: ${load()}`);
  const pin = pinPlan();
  try {
    const printed = join(work, 'printed');
    const printer = new VirtualPrinter({
      name: DEMO.printer.name,
      outputDir: printed,
      logger: silentLogger(),
    });
    const { uri } = await printer.start();
    stops.unshift(() => printer.stop());
    const emulator = startChild('emulator', [work], []);
    stops.unshift(() => emulator.stop());
    const url = (await emulator.next(/listening (\S+)/))[1]!;
    const reader = `socket://127.0.0.1:${await freePort()}`;
    const agentArgs = [work, url, uri, reader, ...(parallel ? [parallel] : [])];
    const agent = startChild('agent', agentArgs, agentNodeFlags(), agentNodeEnv());
    stops.unshift(() => agent.stop());
    await agent.next(/ready/);
    if (pin) {
      // The agent's worker threads exist by now; any it starts later inherit its core.
      pinProcess(agent.child.pid as number, pin.agentCore);
      pinProcess(emulator.child.pid as number, pin.cloudCore);
      pinProcess(process.pid, pin.cloudCore);
      console.log(
        `pinned: agent on core ${pin.agentCore}; emulator, printer and app on core ${pin.cloudCore}`,
      );
    }
    const app = await signIn(url, DEMO.user.email, DEMO.user.password);
    stops.unshift(() => app.close());
    const arrivals = new ArrivalWatch(printed);
    stops.unshift(async () => arrivals.close());
    const file = await writePdf(join(work, 'one.pdf'), 1, 'PrintRelay release benchmark');
    const queueId = await printerIdOf(app.sfapi, QUEUE_PRINTER);
    const printerId = await printerIdOf(app.sfapi, DEMO.printer.name);
    const pids: Record<PartName, number> = { emulator: emulator.child.pid!, agent: agent.child.pid! };

    const staged = async (to: string) => {
      const { fileid, sasUri } = await app.sfapi.prepareUpload();
      await app.sfapi.upload(sasUri, file, () => {});
      return () => app.sfapi.print({ fileid, type: 'pdf', alias: 'bench.pdf', printerid: to });
    };
    const windows: Record<Path, Window[]> = { direct: [], release: [] };
    const cpu: Record<Path, Record<PartName | 'bench', number>> = {
      direct: { emulator: 0, agent: 0, bench: 0 },
      release: { emulator: 0, agent: 0, bench: 0 },
    };
    const sleeps: Record<Path, Record<PartName, number>> = {
      direct: { emulator: 0, agent: 0 },
      release: { emulator: 0, agent: 0 },
    };
    const round = async (path: Path, measured: boolean) => {
      const prints: (() => Promise<unknown>)[] = [];
      for (let i = 0; i < jobs; i++) prints.push(await staged(path === 'direct' ? printerId : queueId));
      if (path === 'release') for (const print of prints) await print();
      const ended = path === 'release' ? agent.next(/session-end (\d+)/) : undefined;
      const done = arrivals.after(jobs);
      const cpu0 = {
        emulator: cpuSecondsOf(pids.emulator),
        agent: cpuSecondsOf(pids.agent),
        sleeps: { emulator: sleepsOf(pids.emulator), agent: sleepsOf(pids.agent) },
        bench: process.cpuUsage(),
      };
      const t0 = performance.now();
      const fromUs = nowUs();
      if (path === 'direct') await Promise.all(prints.map((print) => print()));
      else await sendSwipe(reader, DEMO.user.card);
      const seconds = ((await done) - t0) / 1000;
      if (ended && Number((await ended)[1]) !== jobs) throw new Error('the swipe did not release every job');
      await sleep(300);
      if (!measured) return;
      windows[path].push({ fromUs, toUs: nowUs() });
      for (const part of ['emulator', 'agent'] as const)
        cpu[path][part] += cpuSecondsOf(pids[part]) - cpu0[part];
      for (const part of ['emulator', 'agent'] as const)
        sleeps[path][part] += sleepsOf(pids[part]) - cpu0.sleeps[part];
      const own = process.cpuUsage(cpu0.bench);
      cpu[path].bench += (own.user + own.system) / 1e6;
      console.log(`${path.padEnd(7)} ${(jobs / seconds).toFixed(1)} jobs/s (load ${load()})`);
    };
    for (const path of ['direct', 'release'] as const) await round(path, false);
    for (let r = 0; r < rounds; r++)
      for (const path of r % 2 === 0 ? (['direct', 'release'] as const) : (['release', 'direct'] as const))
        await round(path, true);
    for (const stop of stops.splice(0, 5)) await stop();
    // The windows too, to read the profiles by path later (bench/profile-summary.ts reads whole files).
    writeFileSync(join(profileDir, 'windows.json'), JSON.stringify(windows), { mode: 0o600 });
    report(cpu, sleeps, windows);
  } finally {
    for (const stop of stops) await stop().catch((error) => console.error(`stop failed: ${error}`));
  }
  console.log(`load average at end: ${load()}`);
}

/** The newest profile of a main thread (thread id 0: `CPU.<date>.<time>.<pid>.0.<seq>.cpuprofile`). */
function mainThreadProfile(dir: string): string {
  const names = readdirSync(dir).filter((name) => /\.\d+\.0\.\d+\.cpuprofile$/.test(name));
  const newest = names.sort().at(-1);
  if (!newest) throw new Error(`no main-thread profile in ${dir}`);
  return join(dir, newest);
}

/** Busy microseconds by source file (our files by path; libraries and V8 entries as labelled). */
function byFile(byLabel: Map<string, number>): Map<string, number> {
  const files = new Map<string, number>();
  for (const [label, us] of byLabel) {
    const own = / ((?:src|dist)\/\S+)$/.exec(label);
    const file = own ? own[1]! : label;
    files.set(file, (files.get(file) ?? 0) + us);
  }
  return files;
}

function report(
  cpu: Record<Path, Record<PartName | 'bench', number>>,
  sleeps: Record<Path, Record<PartName, number>>,
  windows: Record<Path, Window[]>,
): void {
  const n = rounds * jobs;
  const us = (v: number) => (v / n).toFixed(0).padStart(6);
  const total = (path: Path) => cpu[path].emulator + cpu[path].agent + cpu[path].bench;
  console.log('CPU per job (us), direct / release:');
  console.log(
    `  bench process (the virtual printer; the app's Prints on the direct path) ${us(cpu.direct.bench * 1e6)} / ${us(cpu.release.bench * 1e6)}`,
  );
  console.log(`  the three processes ${us(total('direct') * 1e6)} / ${us(total('release') * 1e6)}`);
  for (const part of ['emulator', 'agent'] as const) {
    const file = mainThreadProfile(join(profileDir, part));
    const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
    const charge = {
      direct: chargeWindows(profile, windows.direct),
      release: chargeWindows(profile, windows.release),
    };
    console.log(`\n${part}: ${file}; us per job, direct / release`);
    console.log(`  CPU (/proc)   ${us(cpu.direct[part] * 1e6)} / ${us(cpu.release[part] * 1e6)}`);
    const perJob = (v: number) => (v / n).toFixed(1);
    console.log(
      `  sleeps (voluntary context switches) per job ${perJob(sleeps.direct[part])} / ${perJob(sleeps.release[part])}`,
    );
    console.log(`  busy samples  ${us(charge.direct.busyUs)} / ${us(charge.release.busyUs)}`);
    console.log(`  idle samples  ${us(charge.direct.idleUs)} / ${us(charge.release.idleUs)}`);
    const tables = {
      'by area': [charge.direct.byArea, charge.release.byArea, 20],
      'by file': [byFile(charge.direct.byLabel), byFile(charge.release.byLabel), 30],
      'top functions': [charge.direct.byLabel, charge.release.byLabel, 30],
    } as const;
    for (const [title, [direct, release, top]] of Object.entries(tables)) {
      console.log(`  ${title}:`);
      const names = new Set([...direct.keys(), ...release.keys()]);
      const rows = [...names].map((name) => ({ name, d: direct.get(name) ?? 0, r: release.get(name) ?? 0 }));
      rows.sort((a, b) => Math.max(b.d, b.r) - Math.max(a.d, a.r));
      for (const row of rows.slice(0, top)) console.log(`    ${us(row.d)} / ${us(row.r)}  ${row.name}`);
    }
  }
}

await main();
