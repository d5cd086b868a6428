/**
 * A job whose document the cloud refuses for good (its file deleted: 410; the job moved to
 * another connector: 404) ends in the agent's ledger as failed with the reason, at the first
 * answer and without retries, and the agent's events for a job the cloud no longer gives it
 * leave the outbox instead of being re-sent forever. The real emulator, the real agent and the
 * virtual printer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '../../src/lib/sqlite.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../../src/lib/abort.js';
import { systemClock } from '../../src/lib/clock.js';
import { openAgentDatabase } from '../../src/store/agent-db.js';
import { Outbox } from '../../src/store/outbox.js';
import type { VirtualPrinter } from '../../src/printing/virtual/virtual-printer.js';
import { type EmulatorWithApp, startEmulatorWithApp } from '../support/agent-rig.js';
import { emulatorAgent } from '../support/emulator-agent-config.js';
import { registeredVirtualPrinter, submitText } from '../support/emulator-print.js';

const PRINTER = 'Refused Document Printer';

describe('a document the cloud refuses for good', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-refused-'));
  const dataDir = join(dir, 'agent');
  let rig: EmulatorWithApp;
  let printer: VirtualPrinter;
  let printerUri: string;

  const agent = (uri = printerUri) =>
    emulatorAgent({
      cloudUrl: rig.base,
      connectorName: 'refused-test',
      jobs: { download_attempts: 50 },
      printers: [{ name: PRINTER, uri }],
      dataDir,
    });

  /** Submits a text document as an app does; returns the cloud job id. */
  const submit = (printerId: string, text: string) => submitText(rig.sfapi, dir, printerId, text);

  function ledger(jobId: string): { state: string; attempts: number; last_error: string | null } {
    const db = openSqlite(join(dataDir, 'agent.db'), { readonly: true });
    try {
      return db.prepare('SELECT state, attempts, last_error FROM jobs WHERE job_id = ?').get(jobId) as {
        state: string;
        attempts: number;
        last_error: string | null;
      };
    } finally {
      db.close();
    }
  }

  function outboxOf(jobId: string): number {
    const db = openSqlite(join(dataDir, 'agent.db'), { readonly: true });
    try {
      return (db.prepare('SELECT COUNT(*) AS n FROM outbox WHERE job_id = ?').get(jobId) as { n: number }).n;
    } finally {
      db.close();
    }
  }

  /** Waits (bounded) until `done` holds. */
  async function until(what: string, done: () => boolean): Promise<void> {
    for (let i = 0; i < 300; i++) {
      if (done()) return;
      await sleep(50);
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  let printerId: string;

  beforeAll(async () => {
    rig = await startEmulatorWithApp(dir);
    ({ printer, uri: printerUri, cloudId: printerId } = await registeredVirtualPrinter(dir, PRINTER, agent));
  }, 60_000);

  afterAll(async () => {
    await printer?.stop();
    await rig?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a deleted document (410) fails the job at once with the reason, reported to the cloud once', async () => {
    const jobId = await submit(printerId, 'this document is deleted before the agent fetches it\n');
    const store = rig.emulator.app.emulator.store;
    store.jobs.markFileDeleted(jobId);
    const running = agent();
    await running.start();
    try {
      await until('the job to fail', () => ledger(jobId)?.state === 'failed');
      const row = ledger(jobId);
      expect(row.last_error).toMatch(/refused the document for good/);
      expect(row.last_error).toMatch(/410/);
      expect(row.attempts).toBe(0);
      await until('the cloud to hear of it', () => store.jobs.findById(jobId)?.state === 'failed');
      await until('the outbox to empty', () => outboxOf(jobId) === 0);
    } finally {
      await running.stop();
    }
  });

  it('events of a job the cloud no longer gives this connector (404) leave the outbox instead of being re-sent', async () => {
    const jobId = await submit(printerId, 'this job moves to another connector\n');
    const store = rig.emulator.app.emulator.store;
    const running = agent();
    await running.start();
    try {
      await until('the job to print', () => ledger(jobId)?.state === 'completed');
    } finally {
      await running.stop();
    }
    // The agent still owes an event when the cloud drops the job (an organization's clean-up,
    // a deleted job): every answer for it is now 404.
    const db = openAgentDatabase(join(dataDir, 'agent.db'));
    try {
      new Outbox(db, systemClock, { initialMs: 50, maxMs: 200, factor: 2, jitter: 0 }).add(jobId, {
        kind: 'printing',
      });
    } finally {
      db.close();
    }
    store.db.prepare('DELETE FROM jobs WHERE id = ?').run(jobId);
    const again = agent();
    await again.start();
    try {
      await until('the refused event to leave the outbox', () => outboxOf(jobId) === 0);
    } finally {
      await again.stop();
    }
  });
});
