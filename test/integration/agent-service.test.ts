/**
 * `printrelay agent` as systemd runs it: real processes, the emulator as the cloud, and a socat
 * datagram socket as NOTIFY_SOCKET. The agent says READY=1 with its status once registered,
 * feeds WATCHDOG=1 at half of WATCHDOG_USEC, says STOPPING=1 on SIGTERM; with the cloud down it
 * says READY=1 with the reason in STATUS= and keeps retrying until the cloud comes up.
 * One agent per data directory: a second one exits naming the first one's pid and lock file,
 * and the lock of a SIGKILLed agent is taken over.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NotifySocket } from '../support/notify-socket.js';
import { freePort, peersAvailable } from '../support/peers.js';
import { CliProcess, startEmulatorProcess } from './cli-process.js';

const hasSocat = peersAvailable('socat');
const dir = mkdtempSync(join(tmpdir(), 'printrelay-service-'));
const processes: CliProcess[] = [];
const sockets: NotifySocket[] = [];

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  await Promise.all(sockets.map((s) => s.stop()));
  rmSync(dir, { recursive: true, force: true });
});

/** An emulator on `listen`; returns its URL. */
async function emulator(listen: string): Promise<string> {
  const { process, url } = await startEmulatorProcess(join(dir, `emu-${processes.length}`), listen, [
    '--log-level',
    'warn',
  ]);
  processes.push(process);
  return url;
}

function agent(dataDir: string, url: string, env: Record<string, string> = {}): CliProcess {
  const args = ['agent', '--config', 'config/agent.example.yaml', '--data-dir', dataDir, '--no-pretty'];
  const process = new CliProcess(args, {
    PRINTRELAY_CLOUD__URL: url,
    PRINTRELAY_JOBS__RETRY_INITIAL_MS: '100',
    PRINTRELAY_JOBS__RETRY_MAX_MS: '300',
    ...env,
  });
  processes.push(process);
  return process;
}

async function notifySocket(name: string): Promise<NotifySocket> {
  const socket = await NotifySocket.listen(join(dir, name));
  sockets.push(socket);
  return socket;
}

describe.skipIf(!hasSocat)('the agent under a service manager (sd_notify)', () => {
  it('reports READY=1 after registering, feeds the watchdog, and reports STOPPING=1', async () => {
    const url = await emulator('127.0.0.1:0');
    const socket = await notifySocket('notify-up');
    const proc = agent(join(dir, 'agent-up'), url, { NOTIFY_SOCKET: socket.path, WATCHDOG_USEC: '400000' });
    await proc.waitFor(/"msg":"agent started"/);
    const connector = /"connector":"([^"]+)","printers":1,"msg":"agent started"/.exec(proc.stdout)?.[1];
    const status = await socket.waitFor(/^STATUS=connected/);
    expect(status).toBe(`STATUS=connected as connector ${connector}; 1 printer(s) registered`);
    const lines = socket.lines();
    expect(lines[lines.indexOf(status) - 1]).toBe('READY=1');
    // Beats every 200 ms: wait for a few more after readiness, from the running job loop.
    const before = socket.count('WATCHDOG=1');
    while (socket.count('WATCHDOG=1') < before + 3) await new Promise((r) => setTimeout(r, 50));
    expect(await proc.stop()).toBe(0);
    await socket.waitFor(/^STOPPING=1$/);
    expect(socket.lines()).toContain('STATUS=stopping: finishing in-flight jobs');
    expect(proc.stdout).not.toContain('NOTIFY_SOCKET');
  });

  it('with the cloud down: READY=1 and the reason in STATUS=, then connects when the cloud comes up', async () => {
    const port = await freePort();
    const socket = await notifySocket('notify-down');
    const proc = agent(join(dir, 'agent-down'), `http://127.0.0.1:${port}`, {
      NOTIFY_SOCKET: socket.path,
      WATCHDOG_USEC: '400000',
    });
    await socket.waitFor(/^STATUS=waiting for the cloud \(attempt 2\)/);
    const lines = socket.lines();
    const first = lines.findIndex((l) => l.startsWith('STATUS=waiting'));
    expect(lines[first - 1]).toBe('READY=1');
    expect(lines[first]).toMatch(
      new RegExp(
        `^STATUS=waiting for the cloud \\(attempt 1\\): POST http://127\\.0\\.0\\.1:${port}/oauth/access_token/: ECONNREFUSED .*; next try in 1 s$`,
      ),
    );
    expect(socket.count('READY=1')).toBe(1);
    const beats = socket.count('WATCHDOG=1');
    while (socket.count('WATCHDOG=1') < beats + 2) await new Promise((r) => setTimeout(r, 50));

    await emulator(`127.0.0.1:${port}`);
    await socket.waitFor(/^STATUS=connected as connector /);
    expect(socket.count('READY=1')).toBe(2);
    expect(await proc.stop()).toBe(0);
  });
});

describe('one agent per data directory (real processes)', () => {
  it('a second agent exits naming the first one; a SIGKILLed agent’s lock is taken over', async () => {
    const dataDir = join(dir, 'shared');
    const down = `http://127.0.0.1:${await freePort()}`;
    const first = agent(dataDir, down);
    await first.waitFor(/cloud unreachable at start-up; retrying/);
    const lockPath = join(dataDir, 'agent.lock');
    const firstPid = JSON.parse(readFileSync(lockPath, 'utf8')).pid as number;

    const second = agent(dataDir, down);
    expect(await second.exited).toBe(1);
    expect(second.stderr).toBe(
      `error: another agent (pid ${firstPid}) is using this data directory: lock file ${lockPath}. ` +
        `Stop that agent first, or use another --data-dir. If no printrelay agent runs as pid ${firstPid}, delete the lock file.\n`,
    );

    first.signal('SIGKILL');
    await first.exited;
    const third = agent(dataDir, down);
    await third.waitFor(/cloud unreachable at start-up; retrying/);
    const thirdPid = JSON.parse(readFileSync(lockPath, 'utf8')).pid as number;
    expect(thirdPid).not.toBe(firstPid);
    expect(await third.stop()).toBe(0);
    expect(() => readFileSync(lockPath)).toThrow(/ENOENT/);
  });
});
