/**
 * Issue 22, item 5: registration sheets answered 404 at the agent's download. The cause: the
 * agent's job calls (poll, claim, document, events) did not name their connector, so the cloud
 * took "the connector most recently seen among those registered by the same user and client".
 * With a second connector of the same admin and OAuth client (a second agent) seen last, the
 * first agent's download of a sheet printed on its own printer was attributed to the other
 * connector: 404, and its events too. The channel client now names the connector it registered
 * as (X-Host-Id) on every job call.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimingDownload } from '../../src/agent/jobs/claiming-download.js';
import { ChannelClient } from '../../src/client/channel-client.js';
import { ChannelSocket } from '../../src/client/channel-socket.js';
import { HttpClient } from '../../src/client/http-base.js';
import { REGISTRATION_JOB_USER } from '../../src/emulator/pull/cards/registration-codes.js';
import { defaultBackoff } from '../../src/lib/backoff.js';
import { silentLogger } from '../../src/log/logger.js';
import type { ServerMessage } from '../../src/protocol/connector-channel.js';
import { call, createPrinter, registration } from './emulator-harness.js';
import { DEMO, startTpfmHarness, type TpfmHarness, tpfm } from './emulator-tpfm-harness.js';

let h: TpfmHarness;
let work: string;
let otherConnectorId: string;

beforeAll(async () => {
  h = await startTpfmHarness();
  work = mkdtempSync(join(tmpdir(), 'sheet-two-connectors-'));
  // A second agent of the same admin and OAuth client: its own connector and printer.
  const other = await call(
    h.baseUrl,
    'POST',
    '/connector/v1/register',
    h.adminToken,
    registration('second-agent', 'Second agent'),
  );
  otherConnectorId = other.body.id;
  await createPrinter(h.baseUrl, h.adminToken, otherConnectorId, 'Second agent printer');
});
afterAll(async () => {
  await h?.close();
  rmSync(work, { recursive: true, force: true });
});

const ctx = () => h.emulator.app.emulator;

/** The connector client of the first agent, registered (idempotently) as the harness connector. */
async function withFirstAgent<T>(use: (channel: ChannelClient) => Promise<T>): Promise<T> {
  const http = new HttpClient({
    baseUrl: h.baseUrl,
    timeoutMs: 10_000,
    tokens: { token: async () => h.adminToken, invalidate: () => {} },
  });
  try {
    const channel = new ChannelClient(http);
    const me = await channel.register({
      ...registration('tpfm-test-connector', 'TPFM test connector'),
      supported_formats: 'PDF,XPS',
    });
    expect(me.id).toBe(h.connectorId);
    return await use(channel);
  } finally {
    await http.close();
  }
}

/** The second agent makes a call after the first one: it is now the most recently seen. */
async function secondAgentSeen(): Promise<void> {
  h.clock.advance(5_000);
  const poll = await call(h.baseUrl, 'GET', '/connector/v1/jobs', h.adminToken, undefined, {
    'x-host-id': otherConnectorId,
  });
  expect(poll.status).toBe(200);
}

/** A registration sheet for an unknown card on the first agent's printer; its job id. */
async function sheetFor(card: string): Promise<string> {
  expect((await tpfm(h, 'GetCapabilities', { Printer: DEMO.printer.name }, { user: card })).code).toBe(0);
  const row = ctx()
    .store.db.prepare(
      'SELECT id FROM jobs WHERE user_id = ? AND printer_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1',
    )
    .get(REGISTRATION_JOB_USER, h.demoPrinterId) as { id: string };
  return row.id;
}

describe('registration sheets with two connectors of one admin and client (regression, issue 22 item 5)', () => {
  it('the first agent downloads and finishes the sheet printed on its printer after the second was seen', async () => {
    await withFirstAgent(async (channel) => {
      const jobId = await sheetFor('5EE70001');
      await secondAgentSeen();
      const offer = ctx().jobs.offer(ctx().store.jobs.findById(jobId)!);
      const target = join(work, `${jobId}.pdf`);
      await claimingDownload(channel, offer, target, new AbortController().signal);
      expect(readFileSync(target).subarray(0, 5).toString()).toBe('%PDF-');
      expect(ctx().store.jobs.findById(jobId)).toMatchObject({ claimedBy: h.connectorId });

      await secondAgentSeen();
      const at = new Date(h.clock.now()).toISOString();
      await channel.postEvent(jobId, { event_id: randomUUID(), seq: 1, kind: 'received', at });
      await channel.postEvent(jobId, {
        event_id: randomUUID(),
        seq: 2,
        kind: 'completed',
        at,
        pages_printed: 1,
      });
      const job = ctx().store.jobs.findById(jobId)!;
      expect(job.state).toBe('completed');
      await expect.poll(() => existsSync(job.file.path)).toBe(false);
    });
  });

  it('the poll and the batch of events of the first agent are its own after the second was seen', async () => {
    await withFirstAgent(async (channel) => {
      const jobId = await sheetFor('5EE70002');
      await secondAgentSeen();
      const offers = await channel.poll(0);
      expect(offers.map((o) => o.job_id)).toContain(jobId);
      expect(offers.every((o) => o.printer_id !== undefined && o.printer_id !== '')).toBe(true);
      await channel.claim(jobId);
      await secondAgentSeen();
      const at = new Date(h.clock.now()).toISOString();
      const results = await channel.postEvents([
        { job_id: jobId, event: { event_id: randomUUID(), seq: 1, kind: 'received', at } },
      ]);
      expect(results.map((r) => r.status)).toEqual([204]);
    });
  });
});

describe('the channel WebSocket with two connectors of one admin and client (regression, issue 22 item 5)', () => {
  it("is the first agent's channel after the second was seen, and gets the sheet offer of its printer", async () => {
    await withFirstAgent(async (channel) => {
      await secondAgentSeen();
      const messages: ServerMessage[] = [];
      const socket = new ChannelSocket({
        baseUrl: h.baseUrl,
        tokens: { token: async () => h.adminToken, invalidate: () => {} },
        logger: silentLogger(),
        backoff: defaultBackoff,
        onMessage: (m) => messages.push(m),
        connectorId: () => channel.registeredConnectorId,
      });
      socket.start();
      try {
        await expect.poll(() => messages.find((m) => m.type === 'hello')).toBeDefined();
        const hello = messages.find((m) => m.type === 'hello') as Extract<ServerMessage, { type: 'hello' }>;
        expect(hello.connector_id).toBe(h.connectorId);
        const jobId = await sheetFor('5EE70003');
        await expect
          .poll(() => messages.some((m) => m.type === 'job.offer' && m.job.job_id === jobId))
          .toBe(true);
      } finally {
        await socket.stop();
      }
    });
  });
});

describe('a job call taken as another connector of the organization', () => {
  it('answers 404 naming the connector the call was taken as', async () => {
    const jobId = await sheetFor('5EE70004');
    const res = await call(
      h.baseUrl,
      'GET',
      `/connector/v1/jobs/${jobId}/document?claim=1`,
      h.adminToken,
      undefined,
      {
        'x-host-id': otherConnectorId,
      },
    );
    expect(res.status).toBe(404);
    expect(res.body.message).toBe(`job ${jobId} of connector "Second agent" not found`);
    const foreign = await call(
      h.baseUrl,
      'GET',
      `/connector/v1/jobs/${randomUUID()}/document`,
      h.adminToken,
      undefined,
      {
        'x-host-id': otherConnectorId,
      },
    );
    expect(foreign.status).toBe(404);
    expect(foreign.body.message).not.toContain('Second agent');
  });
});
