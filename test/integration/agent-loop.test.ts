/**
 * The agent against the REAL emulator (port 0) and the shared ippeveprinter: registration is
 * idempotent across restarts, jobs arrive over the WebSocket and over the poll and are printed
 * and reported completed, and a restart in the middle of a job does not print it twice.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '../../src/lib/sqlite.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Agent } from '../../src/agent/agent.js';
import type { SfapiClient } from '../../src/client/sfapi-client.js';
import { sleep } from '../../src/lib/abort.js';
import { type EmulatorWithApp, startEmulatorWithApp, startSlowPrinter } from '../support/agent-rig.js';
import { emulatorAgent } from '../support/emulator-agent-config.js';
import { submitText } from '../support/emulator-print.js';
import type { RunningIppEvePrinter } from '../support/ippeveprinter.js';
import { peersAvailable } from '../support/peers.js';

const enabled = peersAvailable('ippeveprinter', 'ipptool') && inject('ippeveprinterUri') !== '';

describe.skipIf(!enabled)('agent with the emulator and ippeveprinter', () => {
  let dir: string;
  let base: string;
  let sfapi: SfapiClient;
  let rig: EmulatorWithApp;
  let slow: RunningIppEvePrinter;
  const printerName = 'Agent Loop Printer';
  const slowName = 'Agent Slow Printer';

  const agentFor = (channel: 'websocket' | 'poll', dataDir = join(dir, 'agent'), downloadAttempts = 8) =>
    emulatorAgent({
      cloudUrl: base,
      channel,
      connectorName: 'loop-test',
      connectorDescription: 'integration test',
      jobs: { retry_max_ms: 500, download_attempts: downloadAttempts },
      printers: [
        { name: printerName, uri: inject('ippeveprinterUri') },
        { name: slowName, uri: slow.uri },
      ],
      dataDir,
    });

  /** Submits a text document as an app does and returns the cloud job id. */
  async function submit(printerId: string, text: string): Promise<string> {
    const progress: [number, number][] = [];
    const jobid = await submitText(sfapi, dir, printerId, text, (sent, total) =>
      progress.push([sent, total]),
    );
    const last = progress.at(-1);
    expect(last?.[0]).toBe(last?.[1]);
    return jobid;
  }

  const cloudIdOf = (agent: Agent, name: string) =>
    agent.printers().find((p) => p.config.name === name)?.cloudId as string;

  /** Reads one job's ledger row from the agent's database. */
  function ledgerRow(dataDir: string, jobId: string): { state: string; attempts: number } {
    const db = openSqlite(join(dataDir, 'agent.db'), { readonly: true });
    try {
      return db.prepare('SELECT state, attempts FROM jobs WHERE job_id = ?').get(jobId) as {
        state: string;
        attempts: number;
      };
    } finally {
      db.close();
    }
  }

  async function waitFor(jobId: string, code = 0): Promise<number> {
    // Bounded, so a job that never ends fails the test instead of hanging it.
    for (let i = 0; i < 1200; i++) {
      const status = await sfapi.status(jobId);
      if (status.jobstatus === code || ![129, 1246].includes(status.jobstatus)) return status.jobstatus;
      await sleep(100);
    }
    throw new Error(`job ${jobId} did not end`);
  }

  /**
   * Submits a good, a poisoned and a good job while no agent runs; the poisoned one's bytes are
   * changed at the emulator after Print (as a late second upload could before issue 10), so
   * every download fails its sha256 check.
   */
  async function poisonedBetweenGood(printerId: string): Promise<[string, string, string]> {
    const first = await submit(printerId, 'good job before the poisoned one\n');
    const poisoned = await submit(printerId, 'this document will not match its hash\n');
    const last = await submit(printerId, 'good job after the poisoned one\n');
    const record = rig.emulator.app.emulator.store.jobs.findById(poisoned)!;
    // Same length, other bytes: the download completes and fails its sha256 check every time.
    writeFileSync(record.file.path, 'X'.repeat(record.file.size));
    return [first, poisoned, last];
  }

  /** Printer jobs that carry this cloud job's name (ippeveprinter keeps `<id>-<name>.*` files per job). */
  const printsOf = (jobId: string) => {
    const files = readdirSync(inject('ippeveprinterSpool')).filter((f) => f.includes(`printrelay-${jobId}.`));
    return new Set(files.map((f) => f.split('-')[0])).size;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-loop-'));
    slow = await startSlowPrinter(dir, slowName, 2);
    rig = await startEmulatorWithApp(dir);
    ({ base, sfapi } = rig);
  });

  afterAll(async () => {
    await rig?.close();
    await slow?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('registers idempotently and prints a job offered over the WebSocket', async () => {
    const first = agentFor('websocket');
    await first.start();
    const connectorId = first.connectorId;
    const printerId = cloudIdOf(first, printerName) as string;
    expect(first.printers().map((p) => p.online)).toEqual([true, true]);
    await first.stop();

    const agent = agentFor('websocket');
    await agent.start();
    try {
      expect(agent.connectorId).toBe(connectorId);
      expect(cloudIdOf(agent, printerName)).toBe(printerId);
      const printers = await sfapi.getPrinters();
      expect(printers.filter((p) => p.name === printerName)).toHaveLength(1);
      while (!agent.channelConnected) await sleep(50);
      const jobId = await submit(printerId, 'hello over the websocket\n');
      expect(await waitFor(jobId)).toBe(0);
      expect(printsOf(jobId)).toBe(1);
    } finally {
      await agent.stop();
    }
  });

  it('prints a job that arrives over the poll', async () => {
    const agent = agentFor('poll');
    await agent.start();
    try {
      const jobId = await submit(cloudIdOf(agent, printerName) as string, 'hello over the poll\n');
      expect(await waitFor(jobId)).toBe(0);
      expect(printsOf(jobId)).toBe(1);
    } finally {
      await agent.stop();
    }
  });

  it('a restart after Print-Job but before "submitted" was recorded watches the job instead of printing it again', async () => {
    const dataDir = join(dir, 'agent');
    const agent = agentFor('websocket', dataDir);
    await agent.start();
    const printerId = cloudIdOf(agent, printerName) as string;
    const jobId = await submit(printerId, 'printed exactly once\n');
    expect(await waitFor(jobId)).toBe(0);
    await agent.stop();
    // Rewind the ledger to the crash window: submitting, no printer job id recorded.
    const db = openSqlite(join(dataDir, 'agent.db'));
    db.prepare("UPDATE jobs SET state = 'submitting', printer_job_id = NULL WHERE job_id = ?").run(jobId);
    db.close();

    const restarted = agentFor('websocket', dataDir);
    await restarted.start();
    try {
      let state = '';
      for (let i = 0; i < 100 && state !== 'completed'; i++) {
        state = ledgerRow(dataDir, jobId).state;
        if (state !== 'completed') await sleep(100);
      }
      expect(state).toBe('completed');
      expect(printsOf(jobId)).toBe(1);
    } finally {
      await restarted.stop();
    }
  });

  it('retries a busy printer until it takes the job, and prints it once', async () => {
    const dataDir = join(dir, 'agent');
    const agent = agentFor('websocket', dataDir);
    await agent.start();
    try {
      const occupier = join(dir, 'occupier.txt');
      writeFileSync(occupier, 'keeps the printer busy\n');
      await promisify(execFile)('ipptool', ['-f', occupier, slow.uri, 'print-job.test']);
      const jobId = await submit(cloudIdOf(agent, slowName), 'printed after the busy one\n');
      expect(await waitFor(jobId)).toBe(0);
      expect(ledgerRow(dataDir, jobId).attempts).toBeGreaterThan(1);
      const printed = readdirSync(slow.spoolDir).filter((f) => f.includes(`printrelay-${jobId}.`));
      expect(new Set(printed.map((f) => f.split('-')[0])).size).toBe(1);
    } finally {
      await agent.stop();
    }
  });

  it('stopping while the printer works on a job and starting again finishes it without a second print', async () => {
    const dataDir = join(dir, 'agent');
    const agent = agentFor('websocket', dataDir);
    await agent.start();
    const jobId = await submit(cloudIdOf(agent, slowName), 'interrupted by a restart\n');
    while (ledgerRow(dataDir, jobId)?.state !== 'submitted') await sleep(50);
    await agent.stop();
    expect(ledgerRow(dataDir, jobId).state).toBe('submitted');

    const restarted = agentFor('websocket', dataDir);
    await restarted.start();
    try {
      expect(await waitFor(jobId)).toBe(0);
      expect(ledgerRow(dataDir, jobId).state).toBe('completed');
      const printed = readdirSync(slow.spoolDir).filter((f) => f.includes(`printrelay-${jobId}.`));
      expect(new Set(printed.map((f) => f.split('-')[0])).size).toBe(1);
    } finally {
      await restarted.stop();
    }
  });

  it('a job whose download keeps failing does not hold up the printer’s later jobs', async () => {
    const dataDir = join(dir, 'agent');
    const printerId = await printerWhileStopped(dataDir);
    const [first, poisoned, last] = await poisonedBetweenGood(printerId);
    const agent = agentFor('websocket', dataDir, 1000);
    await agent.start();
    try {
      expect(await waitFor(first)).toBe(0);
      expect(await waitFor(last)).toBe(0);
      expect(printsOf(last)).toBe(1);
      expect(ledgerRow(dataDir, poisoned).state).toBe('downloading');
      expect(printsOf(poisoned)).toBe(0);
    } finally {
      await agent.stop();
    }
  });

  it('a job that cannot be fetched fails after the configured attempts, saying why; the others print', async () => {
    const dataDir = join(dir, 'agent');
    const printerId = await printerWhileStopped(dataDir);
    const [first, poisoned, last] = await poisonedBetweenGood(printerId);
    const agent = agentFor('websocket', dataDir, 3);
    await agent.start();
    try {
      expect(await waitFor(first)).toBe(0);
      expect(await waitFor(last)).toBe(0);
      expect(await waitFor(poisoned)).toBe(3011);
      const message = rig.emulator.app.emulator.store.jobs.findById(poisoned)?.message ?? '';
      expect(message).toMatch(
        /^could not fetch the document after 3 attempts: job \S+: document sha256 [0-9a-f]{64} != [0-9a-f]{64}$/,
      );
      expect(ledgerRow(dataDir, poisoned)).toEqual({ state: 'failed', attempts: 3 });
      expect(printsOf(poisoned)).toBe(0);
    } finally {
      await agent.stop();
    }
  });

  /** Starts and stops an agent, so the printer exists and no agent takes the next jobs at once; its cloud id. */
  async function printerWhileStopped(dataDir: string): Promise<string> {
    const agent = agentFor('websocket', dataDir);
    await agent.start();
    const printerId = cloudIdOf(agent, printerName);
    await agent.stop();
    return printerId;
  }
});
