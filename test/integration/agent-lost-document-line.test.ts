/**
 * A resumed job whose document cannot be fetched again does not hold its printer's line
 * (docs/agent-jobs.md, "Downloading"), end to end: the real agent (restarted on a ledger that
 * holds a job `spooled` whose document an earlier life held in memory), the real emulator, the
 * built-in IPP printer. Between agent and emulator a small HTTP proxy answers that job's document
 * download with 503 while the test says so (the rest passes). A later job for the same printer
 * prints meanwhile; the job prints once, after it, when the cloud serves its document again; a
 * document the cloud deleted (410) fails its job with the reason, never printed; status lists the
 * waiting job as waiting for its document. The wait outlives the agent: restarted while the job
 * waits, the agent asks for the document again only at the next try the ledger recorded.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../../src/lib/abort.js';
import { systemClock } from '../../src/lib/clock.js';
import type { VirtualPrinter } from '../../src/printing/virtual/virtual-printer.js';
import { openAgentDatabase } from '../../src/store/agent-db.js';
import { JobLedger } from '../../src/store/job-ledger.js';
import { Outbox } from '../../src/store/outbox.js';
import { type EmulatorWithApp, startEmulatorWithApp } from '../support/agent-rig.js';
import { emulatorAgent } from '../support/emulator-agent-config.js';
import { registeredVirtualPrinter, submitText } from '../support/emulator-print.js';

const PRINTER = 'Lost Document Printer';

/** Forwards every request to the emulator, but answers the document downloads of `failing` jobs 503. */
class DocumentGate {
  readonly failing = new Set<string>();
  /** Downloads of each job's document answered 503. */
  readonly refused = new Map<string, number>();
  /** When each job's document was asked for (epoch ms), refused or passed on. */
  readonly asked = new Map<string, number[]>();
  private server: Server | undefined;

  constructor(private readonly target: URL) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const match = /^\/connector\/v1\/jobs\/([^/?]+)\/document/.exec(req.url ?? '');
      const jobId = match ? decodeURIComponent(match[1] as string) : undefined;
      if (jobId) this.asked.set(jobId, [...(this.asked.get(jobId) ?? []), Date.now()]);
      if (jobId && this.failing.has(jobId)) {
        this.refused.set(jobId, (this.refused.get(jobId) ?? 0) + 1);
        req.resume();
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'unavailable', message: 'storage unavailable' }));
        return;
      }
      const upstream = request(
        {
          host: this.target.hostname,
          port: this.target.port,
          path: req.url,
          method: req.method,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  times(jobId: string): number {
    return this.refused.get(jobId) ?? 0;
  }
}

describe('a resumed job whose document the cloud cannot serve', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-lost-document-'));
  const dataDir = join(dir, 'agent');
  let rig: EmulatorWithApp;
  let gate: DocumentGate;
  let cloudUrl: string;
  let printer: VirtualPrinter;
  let printerUri: string;
  let printerId: string;

  const agent = (uri = printerUri, jobs: Record<string, number> = {}) =>
    emulatorAgent({
      cloudUrl,
      connectorName: 'lost-document-test',
      jobs: { download_attempts: 1000, ...jobs },
      printers: [{ name: PRINTER, uri }],
      dataDir,
    });

  /** Submits a text document as an app does; returns the cloud job id. */
  const submit = (text: string) => submitText(rig.sfapi, dir, printerId, text);

  /**
   * Records a job in the agent's ledger as an earlier life left it: offered, its document taken
   * into memory and the job recorded `spooled` (with its received and downloading events), then
   * the process died: no spool file, nothing in memory.
   */
  function spooledByAnEarlierLife(jobId: string): void {
    const { jobs, store } = rig.emulator.app.emulator;
    const record = store.jobs.findById(jobId);
    if (!record) throw new Error(`no job ${jobId} at the emulator`);
    const db = openAgentDatabase(join(dataDir, 'agent.db'));
    try {
      const ledger = new JobLedger(db, systemClock);
      const outbox = new Outbox(db, systemClock, { initialMs: 50, maxMs: 200, factor: 2, jitter: 0 });
      ledger.atomically(() => {
        ledger.add(jobs.offer(record), 'spooled');
        outbox.add(jobId, { kind: 'received' });
        outbox.add(jobId, { kind: 'downloading' });
      });
    } finally {
      db.close();
    }
  }

  const printedCopies = (jobId: string) =>
    printer.printed().filter((document) => document.jobName === `printrelay-${jobId}`).length;
  const cloudState = (jobId: string) => rig.emulator.app.emulator.store.jobs.findById(jobId)?.state;

  /** Waits (bounded) until `done` holds. */
  async function until(what: string, done: () => boolean): Promise<void> {
    for (let i = 0; i < 1200; i++) {
      if (done()) return;
      await sleep(50);
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  beforeAll(async () => {
    rig = await startEmulatorWithApp(dir);
    gate = new DocumentGate(new URL(rig.base));
    cloudUrl = await gate.start();
    ({ printer, uri: printerUri, cloudId: printerId } = await registeredVirtualPrinter(dir, PRINTER, agent));
  }, 60_000);

  afterAll(async () => {
    await printer?.stop();
    await gate?.close();
    await rig?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lets a later job print while the cloud answers 503, then prints the job once, after it', async () => {
    const a = await submit('job A: its document was in the memory of an agent that died\n');
    spooledByAnEarlierLife(a);
    gate.failing.add(a);
    const running = agent();
    await running.start();
    try {
      await until('the first try of A', () => gate.times(a) >= 1);
      const b = await submit('job B: arrives while the document of A cannot be fetched\n');
      // On a line A held, B would wait out every one of A's tries.
      await until(
        'B printed, or A tried 20 times',
        () => cloudState(b) === 'completed' || gate.times(a) >= 20,
      );
      expect(cloudState(b)).toBe('completed');
      expect(printedCopies(b)).toBe(1);
      expect(printedCopies(a)).toBe(0);

      const listed = running.status()?.jobs.list.find((job) => job.id === a);
      expect(listed).toMatchObject({ state: 'spooled', waitingFor: 'document' });
      expect(listed?.lastError).toMatch(/503/);

      gate.failing.delete(a);
      await until('A printed', () => cloudState(a) === 'completed');
      expect(printedCopies(a)).toBe(1);
      const order = printer.printed().map((document) => document.jobName);
      expect(order.indexOf(`printrelay-${b}`)).toBeLessThan(order.indexOf(`printrelay-${a}`));
    } finally {
      await running.stop();
    }
  });

  it('keeps the wait across a restart: the restarted agent asks again only at the recorded next try', async () => {
    const e = await submit('job E: waits for its document while the agent restarts\n');
    spooledByAnEarlierLife(e);
    gate.failing.add(e);
    // A first wait of 5 to 10 s (backoff from 5 s, doubled, half jitter): longer than a restart.
    const slow = () => agent(printerUri, { retry_initial_ms: 5_000, retry_max_ms: 60_000 });
    const first = slow();
    await first.start();
    try {
      await until('the first try of E', () => gate.times(e) >= 1);
      await until(
        'its wait recorded',
        () => first.status()?.jobs.list.some((job) => job.id === e && job.waitingFor) === true,
      );
    } finally {
      await first.stop();
    }
    const db = openAgentDatabase(join(dataDir, 'agent.db'));
    const recorded = new JobLedger(db, systemClock).get(e);
    db.close();
    expect(recorded).toMatchObject({ state: 'spooled', refetchTries: 1, refetchFailures: 0 });
    expect(recorded?.lastError).toMatch(/503/);
    const nextTry = recorded?.nextRetryAt ?? 0;

    // The cloud serves E again, but the restarted agent waits for the try its ledger recorded.
    gate.failing.delete(e);
    const triesBefore = gate.asked.get(e)?.length ?? 0;
    const second = slow();
    await second.start();
    try {
      const listed = second.status()?.jobs.list.find((job) => job.id === e);
      // As the first life left it, before any try of this one.
      expect(listed).toMatchObject({ state: 'spooled', waitingFor: 'document', documentTries: 1 });
      expect(listed?.lastError).toMatch(/503/);
      await until('E printed', () => cloudState(e) === 'completed');
      const after = (gate.asked.get(e) ?? []).slice(triesBefore);
      expect(after.length).toBe(1);
      expect(after[0]).toBeGreaterThanOrEqual(nextTry);
      expect(printedCopies(e)).toBe(1);
    } finally {
      await second.stop();
    }
  });

  it('fails the job with the reason, never printed, when the cloud deleted its document (410)', async () => {
    const c = await submit('job C: its document is deleted at the cloud while the agent is down\n');
    spooledByAnEarlierLife(c);
    rig.emulator.app.emulator.store.jobs.markFileDeleted(c);
    const running = agent();
    await running.start();
    try {
      const d = await submit('job D: prints\n');
      await until(
        'C failed and D printed',
        () => cloudState(c) === 'failed' && cloudState(d) === 'completed',
      );
      const status = await rig.sfapi.status(c);
      expect(status.jobstatus).toBe(3011);
      expect(status.jobstatusstring).toMatch(/the cloud no longer has the document: .*410/);
      expect(printedCopies(c)).toBe(0);
      expect(printedCopies(d)).toBe(1);
    } finally {
      await running.stop();
    }
  });
});
