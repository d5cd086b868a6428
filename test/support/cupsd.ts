/**
 * A private cupsd for tests: its own config, spool, state and logs in a temp dir, listening on a
 * free port of 127.0.0.1 in the foreground (-f), plus adding a queue that points at an IPP
 * printer with `lpadmin -m everywhere`. stop() ends the process by its id and removes the dir.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleep } from '../../src/lib/abort.js';
import { freePort, which } from './peers.js';

/** A running private cupsd. */
export interface PrivateCupsd {
  port: number;
  dir: string;
  /** host:port for lp/lpadmin -h and cups://QUEUE?server=. */
  server: string;
  stop(): Promise<void>;
}

function cupsdConfig(dir: string, port: number): void {
  for (const sub of ['spool', 'cache', 'state', 'log', 'tmp', 'ppd'])
    mkdirSync(join(dir, sub), { recursive: true });
  const open = ['  Order allow,deny', '  Allow all'];
  const main = [`Listen 127.0.0.1:${port}`, 'LogLevel warn', 'WebInterface no', 'Browsing off'];
  const policy = ['<Policy default>', '  <Limit All>', ...open, '  </Limit>', '</Policy>'];
  writeFileSync(
    join(dir, 'cupsd.conf'),
    [...main, '<Location />', ...open, '</Location>', ...policy, ''].join('\n'),
  );
  writeFileSync(
    join(dir, 'cups-files.conf'),
    [
      `ServerRoot ${dir}`,
      `RequestRoot ${dir}/spool`,
      `CacheDir ${dir}/cache`,
      `StateDir ${dir}/state`,
      `TempDir ${dir}/tmp`,
      `ErrorLog ${dir}/log/error_log`,
      `AccessLog ${dir}/log/access_log`,
      `PageLog ${dir}/log/page_log`,
      '',
    ].join('\n'),
  );
}

/** Resolves once something accepts TCP connections on 127.0.0.1:port. */
export async function waitForPort(port: number, attempts = 200): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => resolve(socket.destroy() !== undefined));
      socket.once('error', () => resolve(socket.destroy() === undefined));
    });
    if (ok) return;
    await sleep(50);
  }
  throw new Error(`nothing listens on port ${port}`);
}

/** Starts a private cupsd on a free port. */
export async function startCupsd(): Promise<PrivateCupsd> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'printrelay-cupsd-'));
  cupsdConfig(dir, port);
  const child: ChildProcess = spawn(
    which('cupsd') ?? '/usr/sbin/cupsd',
    ['-f', '-c', join(dir, 'cupsd.conf'), '-s', join(dir, 'cups-files.conf')],
    { stdio: 'ignore' },
  );
  await waitForPort(port);
  return {
    port,
    dir,
    server: `127.0.0.1:${port}`,
    async stop() {
      // exitCode stays null for a cupsd that died of a signal: its 'exit' has already come
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Adds queue `name` for the IPP printer at `printerUri` (`-m everywhere` asks the printer for its
 * capabilities), waits until cupsd has written the queue's PPD (it does so a moment after lpadmin
 * returns; until then the queue is a raw one, "Local Raw Printer", and a device URI changed before
 * it leaves it raw), then sets the ipp backend's no-wait options on the device URI (faster jobs).
 */
export function addEverywhereQueue(
  cupsd: PrivateCupsd,
  name: string,
  printerUri: string,
  location = '',
): void {
  const lpadmin = which('lpadmin') ?? 'lpadmin';
  const args = ['-h', cupsd.server, '-p', name, '-E', '-v', printerUri, '-m', 'everywhere'];
  execFileSync(lpadmin, location ? [...args, '-L', location] : args);
  waitForFileSync(join(cupsd.dir, 'ppd', `${name}.ppd`), PPD_WAIT_MS, `the PPD of CUPS queue ${name}`);
  execFileSync(lpadmin, [
    '-h',
    cupsd.server,
    '-p',
    name,
    '-v',
    `${printerUri}?waitjob=false&waitprinter=false`,
  ]);
}

/** How long cupsd may take to write an IPP Everywhere PPD on a busy machine. */
const PPD_WAIT_MS = 60_000;

/** Waits (blocking, in 20 ms steps) until `path` exists and is not empty; throws naming `what`. */
function waitForFileSync(path: string, timeoutMs: number, what: string): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + timeoutMs;
  while (!(existsSync(path) && statSync(path).size > 0)) {
    if (Date.now() > deadline)
      throw new Error(`${what} did not appear at ${path} within ${timeoutMs / 1000} s`);
    Atomics.wait(pause, 0, 0, 20);
  }
}
