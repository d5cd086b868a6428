/**
 * Runs PrintRelay parts as separate processes for benchmarks (so each part's memory can be
 * read on its own) and reads their resident memory from /proc: VmRSS now, VmHWM the peak.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AGENT_NODE_ENV, AGENT_NODE_FLAGS } from '../../src/service/agent-node-flags.js';

const root = join(import.meta.dirname, '..', '..');

/**
 * The file a part runs for BENCH_ENTRY: `dist` this checkout's build, a path ending in .js that
 * file, anything else (unset) bin/printrelay.js, which runs the sources through tsx.
 */
export function benchEntry(setting: string | undefined): string {
  if (setting === 'dist') return join(root, 'dist', 'cli', 'main.js');
  if (setting?.endsWith('.js')) return resolve(setting);
  return join(root, 'bin', 'printrelay.js');
}

export interface RunningPart {
  child: ChildProcess;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts `printrelay <args>` (logs at warn) with `nodeFlags` for node, `options.env` added to
 * this process's environment and `options.entry` instead of the usual entry file; resolves once its output
 * matches `ready`, with the pattern's first group (at once with '' when `ready` is null). The
 * caller stops the part.
 */
export async function startPart(
  args: string[],
  ready: RegExp | null,
  timeoutMs = 60_000,
  nodeFlags: string[] = [],
  options: { env?: Record<string, string>; entry?: string } = {},
): Promise<{ part: RunningPart; match: string }> {
  // BENCH_PROFILE_DIR=<dir> writes a V8 CPU profile of each part there when it exits.
  const profile = process.env.BENCH_PROFILE_DIR
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`]
    : [];
  // BENCH_ENTRY=dist runs the built JavaScript (npm run build), as an installed package does,
  // instead of the sources through tsx; BENCH_ENTRY=<file>.js another build's cli/main.js (an
  // A/B of two builds, one run each); `options.entry` another file for this part alone.
  const entry = options.entry ?? benchEntry(process.env.BENCH_ENTRY);
  const child = spawn(process.execPath, [...nodeFlags, ...profile, entry, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PRINTRELAY_LOG_LEVEL: 'warn', ...options.env },
  });
  let output = '';
  const match = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`printrelay ${args[0]} not ready: ${output.slice(-2000)}`)),
      timeoutMs,
    );
    if (ready === null) {
      clearTimeout(timer);
      setImmediate(() => resolve(''));
    }
    const onData = (chunk: Buffer) => {
      if (ready === null) return;
      output += chunk.toString();
      const found = ready.exec(output);
      if (found) {
        clearTimeout(timer);
        resolve(found[1] ?? found[0]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`printrelay ${args[0]} exited ${code}: ${output.slice(-2000)}`));
    });
  });
  const part: RunningPart = {
    child,
    pid: child.pid as number,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
  return { part, match };
}

/**
 * The node flags of agent processes in the benchmarks: those the agent's services run with
 * (AGENT_NODE_FLAGS), or BENCH_AGENT_NODE_FLAGS split on spaces when set (empty: none, node's
 * defaults), to compare a V8 setting against another.
 */
export function agentNodeFlags(env: Record<string, string | undefined> = process.env): string[] {
  const wanted = env.BENCH_AGENT_NODE_FLAGS;
  if (wanted === undefined) return [...AGENT_NODE_FLAGS];
  return wanted.split(' ').filter((flag) => flag !== '');
}

/**
 * The environment variables agent processes in the benchmarks get on top of this process's
 * environment: those of the agent's Linux service (AGENT_NODE_ENV, the systemd unit's
 * `Environment=` lines), or BENCH_AGENT_ENV's `VAR=value` words separated by spaces when set
 * (empty: none), to compare a setting of the C library such as `MALLOC_ARENA_MAX`. A word
 * without `=` or with an empty name is an error that names it.
 */
export function agentNodeEnv(env: Record<string, string | undefined> = process.env): Record<string, string> {
  if (env.BENCH_AGENT_ENV === undefined) return { ...AGENT_NODE_ENV };
  const words = env.BENCH_AGENT_ENV.split(' ').filter((word) => word !== '');
  return Object.fromEntries(
    words.map((word) => {
      const at = word.indexOf('=');
      if (at < 1) throw new Error(`BENCH_AGENT_ENV: '${word}' must be VAR=value`);
      return [word.slice(0, at), word.slice(at + 1)];
    }),
  );
}

/**
 * Resident memory of a process from /proc/<pid>/smaps_rollup, bytes: `private` (pages only it
 * maps: its heaps and data), `shared` (pages other processes map too, chiefly the node binary's
 * code, which RSS counts in full for every node process) and `pss` (proportional set size: each
 * shared page divided by the number of processes mapping it, so the node binary counts in part).
 */
export function privateMemoryOf(pid: number): { private: number; shared: number; pss: number } {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;
  const rss = kb('Rss');
  const privatePages = kb('Private_Clean') + kb('Private_Dirty');
  return { private: privatePages, shared: rss - privatePages, pss: kb('Pss') };
}

/** `private`, `shared` and `pss` of privateMemoryOf, as one phrase. */
export function pagesPhrase(pages: { private: number; shared: number; pss: number }): string {
  return `private ${mb(pages.private)}, shared ${mb(pages.shared)}, PSS ${mb(pages.pss)}`;
}

/**
 * Reads a process's private memory and PSS every `everyMs` until stop(), which resolves the
 * highest of each (the kernel keeps a peak of RSS only, VmHWM, and RSS counts shared pages).
 */
export function samplePages(pid: number, everyMs = 200): { stop(): { private: number; pss: number } } {
  const peak = { private: 0, pss: 0 };
  const read = () => {
    try {
      const pages = privateMemoryOf(pid);
      peak.private = Math.max(peak.private, pages.private);
      peak.pss = Math.max(peak.pss, pages.pss);
    } catch {
      // the process ended: keep what was read
    }
  };
  read();
  const timer = setInterval(read, everyMs);
  return {
    stop() {
      clearInterval(timer);
      read();
      return { ...peak };
    },
  };
}

/**
 * The memory of an empty node process started with `nodeFlags` and `env` added to this
 * process's environment (the floor under any node program on this machine, in the same run):
 * RSS, private, shared and PSS once it idled 500 ms.
 */
export async function emptyNodeMemory(
  nodeFlags: string[],
  env: Record<string, string> = {},
): Promise<{ rss: number; private: number; shared: number; pss: number }> {
  const child = spawn(process.execPath, [...nodeFlags, '-e', 'setInterval(() => {}, 1e6)'], {
    stdio: 'ignore',
    env: { ...process.env, ...env },
  });
  try {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const pid = child.pid as number;
    return { rss: memoryOf(pid).rss, ...privateMemoryOf(pid) };
  } finally {
    child.kill('SIGKILL');
  }
}

/** Resident memory of a process in bytes: current (VmRSS) and peak (VmHWM). */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/**
 * Resets a process's peak (VmHWM) to its current RSS (writing 5 to clear_refs, Linux >= 4.0),
 * so the next peak read measures one phase. Returns false when the kernel refused.
 */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat. */
export function cpuSecondsOf(pid: number, options: { withChildren?: boolean } = {}): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may contain spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticksPerSecond = 100;
  // utime, stime; then cutime, cstime: children it waited for (ippeveprinter's print command).
  const own = Number(fields[11]) + Number(fields[12]);
  const children = options.withChildren ? Number(fields[13]) + Number(fields[14]) : 0;
  return (own + children) / ticksPerSecond;
}

/**
 * CPU seconds (user + system) of the children `pid` has waited for (cutime + cstime of
 * /proc/<pid>/stat): for this process, the ipptool runs it started and saw exit.
 */
export function childrenCpuSecondsOf(pid: number): number {
  return cpuSecondsOf(pid, { withChildren: true }) - cpuSecondsOf(pid);
}

export function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * The node flags of emulator processes in the benchmarks: none (node's defaults, as the
 * emulator's systemd unit runs it), or BENCH_EMULATOR_NODE_FLAGS split on spaces, to compare a V8
 * setting or trace the emulator's collections (`--trace-gc`, read with BENCH_EMULATOR_LOG).
 */
export function emulatorNodeFlags(env: Record<string, string | undefined> = process.env): string[] {
  return (env.BENCH_EMULATOR_NODE_FLAGS ?? '').split(' ').filter((flag) => flag !== '');
}

/**
 * Starts `printrelay emulator` on a free port with an in-memory database and its files under
 * `dataDir` (plus `extraArgs`), with emulatorNodeFlags(); resolves with the part and its base
 * URL. The caller stops it.
 */
export async function startEmulatorPart(
  dataDir: string,
  extraArgs: string[] = [],
): Promise<{ part: RunningPart; url: string }> {
  const { part, match } = await startPart(
    [
      'emulator',
      ...extraArgs,
      '--listen',
      '127.0.0.1:0',
      '--db',
      ':memory:',
      '--data-dir',
      dataDir,
      '--no-pretty',
    ],
    /listening on (\S+)/,
    60_000,
    emulatorNodeFlags(),
  );
  // BENCH_EMULATOR_LOG=<file>: the emulator's standard output (its log, and what a flag such as
  // --trace-gc in BENCH_EMULATOR_NODE_FLAGS prints) is copied there.
  if (process.env.BENCH_EMULATOR_LOG)
    part.child.stdout?.pipe(createWriteStream(process.env.BENCH_EMULATOR_LOG, { mode: 0o600 }));
  return { part, url: match.replace(/\/+$/, '') };
}
