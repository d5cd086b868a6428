/**
 * The cloud refuses a document download because too many run at once for the organization (503
 * downloads_busy with Retry-After, src/emulator/http/download-gate.ts): the agent waits it out
 * without counting it as a failed download (even with `jobs.download_attempts: 1`), and once a
 * slot is free the job prints exactly once. The real emulator, the real agent and the virtual
 * printer; the organization's only download slot is held by the test.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { DEMO, parseAgentConfig } from '../../src/config/load-config.js';
import { openSqlite } from '../../src/lib/sqlite.js';
import { silentLogger } from '../../src/log/logger.js';
import { VirtualPrinter } from '../../src/printing/virtual/virtual-printer.js';
import { type EmulatorWithApp, startEmulatorWithApp } from '../support/agent-rig.js';

const PRINTER = 'Busy Download Printer';
/** Beyond the channel's inline limit (256 KiB): the agent downloads it over REST. */
const text = `${'a line of a document the cloud is too busy to send at first\n'.repeat(12_000)}`;

describe('a download refused because the cloud is busy', () => {
  const dir = mkdtempSync(join(tmpdir(), 'emuupload-agent-busy-'));
  const dataDir = join(dir, 'agent');
  let rig: EmulatorWithApp;
  let printer: VirtualPrinter;

  const agent = (uri: string) =>
    new Agent({
      config: parseAgentConfig(
        `
version: 1
cloud:
  url: ${rig.base}
  client_id: ${DEMO.client.id}
  client_secret: ${DEMO.client.secret}
  username: ${DEMO.admin.email}
  password: ${DEMO.admin.password}
  channel: poll
  poll_interval_s: 1
connector:
  name: busy-download-test
jobs:
  retry_initial_ms: 50
  retry_max_ms: 200
  status_poll_ms: 100
  download_attempts: 1
printers:
  - name: ${PRINTER}
    uri: ${uri}
`,
        'agent.yaml',
        { env: {} },
      ),
      dataDir,
      logger: silentLogger(),
    });

  function ledger(jobId: string): { state: string; attempts: number; last_error: string | null } | undefined {
    const db = openSqlite(join(dataDir, 'agent.db'), { readonly: true });
    try {
      return db.prepare('SELECT state, attempts, last_error FROM jobs WHERE job_id = ?').get(jobId) as
        | { state: string; attempts: number; last_error: string | null }
        | undefined;
    } finally {
      db.close();
    }
  }

  beforeAll(async () => {
    rig = await startEmulatorWithApp(dir, {
      downloads: { maxActivePerTenant: 1, maxWaitMs: 0, retryAfterS: 1 },
    });
    printer = new VirtualPrinter({ name: PRINTER, outputDir: join(dir, 'printed'), logger: silentLogger() });
  }, 60_000);

  afterAll(async () => {
    await printer?.stop();
    await rig?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('waits out the 503 without counting it, then prints the job once', async () => {
    const { uri } = await printer.start();
    const running = agent(uri);
    await running.start();
    try {
      const printerId = running.printers().find((p) => p.config.name === PRINTER)?.cloudId as string;
      const ctx = rig.emulator.app.emulator;
      const orgId = ctx.store.organizations.findByName(DEMO.organization)?.id as string;
      // The organization's only download slot is taken: every download of its documents is refused.
      const release = await ctx.documents.gate.acquire(orgId, new AbortController().signal);
      const file = join(dir, 'busy.txt');
      writeFileSync(file, text);
      const upload = await rig.sfapi.prepareUpload();
      await rig.sfapi.upload(upload.sasUri, file);
      const { jobid } = await rig.sfapi.print({
        fileid: upload.fileid,
        type: 'txt',
        printerid: printerId,
        alias: 'busy.txt',
      });
      await vi.waitFor(() => expect(ledger(jobid)?.last_error).toMatch(/too many document downloads/), {
        timeout: 20_000,
        interval: 50,
      });
      // Refused more than once by now is fine; failed or counted is not.
      expect(ledger(jobid)).toMatchObject({ state: 'downloading', attempts: 0 });
      release();
      await vi.waitFor(() => expect(ledger(jobid)?.state).toBe('completed'), {
        timeout: 30_000,
        interval: 50,
      });
      const printed = printer.printed();
      expect(printed).toHaveLength(1);
      expect(readFileSync(printed[0]?.path as string, 'utf8')).toBe(text);
      await vi.waitFor(() => expect(ctx.store.jobs.findById(jobid)?.state).toBe('completed'), {
        timeout: 20_000,
        interval: 50,
      });
    } finally {
      await running.stop();
    }
  }, 90_000);
});
