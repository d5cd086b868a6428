/**
 * Runs ippeveprinter (CUPS's IPP Everywhere printer) for tests and benchmarks: the fast variant
 * (`-c /bin/true`, documents kept with `-k`) on a free port with its own spool directory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureSystemBus, freePort, which } from './peers.js';

export interface RunningIppEvePrinter {
  uri: string;
  /** Process id of ippeveprinter (benchmarks read its CPU time). */
  pid: number;
  port: number;
  spoolDir: string;
  stop(): Promise<void>;
}

export interface IppEvePrinterOptions {
  name?: string;
  /** Simulated print command; /bin/true finishes at once. */
  command?: string;
  /** document-format-supported; null leaves it to a PPD or attribute file given in extraArgs (-P/-a). */
  formats?: string | null;
  /** Extra arguments (for example ['-a', attributesFile]). */
  extraArgs?: string[];
  /** Called with each line the printer writes to stderr (with `-v` in extraArgs: one per request). */
  onLogLine?: (line: string) => void;
}

function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve();
      });
      socket.once('error', () => {
        socket.destroy();
        if (Date.now() > deadline) reject(new Error(`ippeveprinter did not listen on ${port}`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

/** Starts an ippeveprinter; the caller stops it. */
export async function startIppEvePrinter(options: IppEvePrinterOptions = {}): Promise<RunningIppEvePrinter> {
  const binary = which('ippeveprinter');
  if (!binary) throw new Error('ippeveprinter not found (apt-get install cups-ipp-utils)');
  ensureSystemBus();
  const port = await freePort();
  const spoolDir = mkdtempSync(join(tmpdir(), 'ippeve-'));
  const args = [
    '-r',
    'off',
    '-n',
    'localhost',
    '-p',
    String(port),
    '-k',
    '-c',
    options.command ?? '/bin/true',
    ...(options.formats === null
      ? []
      : [
          '-f',
          options.formats ?? 'application/pdf,image/pwg-raster,image/urf,text/plain,application/octet-stream',
        ]),
    '-d',
    spoolDir,
    ...(options.extraArgs ?? []),
    options.name ?? 'Test Printer',
  ];
  const child: ChildProcess = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  let partial = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
    if (!options.onLogLine) return;
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) options.onLogLine(line);
  });
  try {
    await waitForPort(port, 10_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}: ${stderr}`);
  }
  return {
    uri: `ipp://localhost:${port}/ipp/print`,
    pid: child.pid as number,
    port,
    spoolDir,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(spoolDir, { recursive: true, force: true });
    },
  };
}
