/**
 * The caps of document downloads at once (src/emulator/http/download-gate.ts) over real HTTP:
 * one organization holding its cap with clients that stopped reading does not hold up another
 * organization's download; its own next download waits in line and gets the slot a client that
 * hung up gave back; one more than its line holds is refused at once with 503, Retry-After and
 * the rule named.
 */
import { writeFileSync } from 'node:fs';
import { type ClientRequest, get, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { defaultTicket } from '../../src/protocol/print-ticket.js';
import { type ConnectorRig, startConnectorRig } from '../support/connector-rig.js';
import { pdfFileRecord } from '../support/pdf-file-record.js';
import { clientToken } from './emulator-accounts-support.js';
import { call, createPrinter, DEMO, registration } from './emulator-harness.js';
import { OTHER_CLIENT, seedWithOtherClient } from './emulator-sfapi-harness.js';

const MiB = 1024 * 1024;
/** Far more than the sockets buffer: a client that stops reading holds its download's slot. */
const big = Buffer.alloc(24 * MiB, 0x42);
const small = Buffer.from(Array.from({ length: 3 * MiB + 11 }, (_, i) => i % 253));
let rig: ConnectorRig;
/** The other organization's connector: its token, id and organization, and a job of `small`. */
let other: { token: string; connectorId: string; orgId: string; jobId: string };

beforeAll(async () => {
  rig = await startConnectorRig(
    { serial: 'SLOTS-1', name: 'Slots', printer: 'Slots printer' },
    {
      seed: seedWithOtherClient(),
      downloads: { maxActive: 3, maxActivePerTenant: 2, maxWaitingPerTenant: 1, maxWaitMs: 60_000 },
    },
  );
  const token = await clientToken(
    rig.h.baseUrl,
    OTHER_CLIENT,
    DEMO.otherAdmin,
    'printing printing.connectors',
  );
  const registered = await call(
    rig.h.baseUrl,
    'POST',
    '/connector/v1/register',
    token,
    registration('SLOTS-2'),
  );
  const connectorId = registered.body.id as string;
  const printerId = await createPrinter(rig.h.baseUrl, token, connectorId, 'Other printer');
  const user = rig.ctx.store.users.findByEmail(DEMO.otherAdmin.email);
  if (!user) throw new Error('the seed has no other admin');
  const path = join(rig.h.dataDir, 'other.pdf');
  writeFileSync(path, small, { mode: 0o600 });
  const { jobId } = rig.ctx.jobs.create({
    organizationId: user.organizationId,
    userId: user.id,
    printerId,
    file: pdfFileRecord(path, small, 'other.pdf'),
    ticket: defaultTicket,
    deleteAfterPrint: false,
  });
  await call(rig.h.baseUrl, 'POST', `/connector/v1/jobs/${jobId}/claim`, token, undefined, {
    'x-host-id': connectorId,
  });
  other = { token, connectorId, orgId: user.organizationId, jobId };
});
afterAll(async () => {
  await rig?.close();
});

/** A claimed job of the rig's organization; its document URL. */
async function demoJob(content: Buffer): Promise<string> {
  const jobId = rig.newJob(content);
  await call(rig.h.baseUrl, 'POST', `/connector/v1/jobs/${jobId}/claim`, rig.token);
  return `${rig.h.baseUrl}/connector/v1/jobs/${jobId}/document`;
}

const demoAuth = () => ({ authorization: `Bearer ${rig.token}`, 'x-host-id': rig.connectorId });

/** A download whose client reads nothing after the headers: it holds its slot until destroyed. */
function stalled(url: string): Promise<{ req: ClientRequest; res: IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const req = get(url, { headers: demoAuth() }, (res) => {
      res.pause();
      resolve({ req, res });
    });
    req.on('error', (error) => {
      if (!req.destroyed) reject(error);
    });
  });
}

async function download(url: string, headers: Record<string, string>) {
  const res = await request(url, { headers });
  return { status: res.statusCode, headers: res.headers, body: Buffer.from(await res.body.arrayBuffer()) };
}

describe('document downloads at once, per organization', () => {
  it("one organization's stalled downloads at its cap do not hold up another's; a hang-up frees its slot", async () => {
    const gate = rig.ctx.documents.gate;
    const url = await demoJob(big);
    const holders = [await stalled(url), await stalled(url)];
    expect(holders.map((h) => h.res.statusCode)).toEqual([200, 200]);
    expect(gate.active(rig.orgId)).toBe(2);

    // The organization's third download waits in line for one of its own slots.
    const waiting = download(url, demoAuth());
    await vi.waitFor(() => expect(gate.waiting(rig.orgId)).toBe(1));

    // One more than its line holds: refused at once, the rule named.
    const refused = await download(url, demoAuth());
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('2');
    const problem = JSON.parse(refused.body.toString()) as { error: string; message: string };
    expect(problem.error).toBe('downloads_busy');
    expect(problem.message).toMatch(/at most 2 document downloads at once per organization/);
    expect(problem.message).toMatch(/downloads\.maxWaitingPerTenant/);

    // The other organization's download goes at once, whole, while those still hold and wait.
    const theirs = await download(`${rig.h.baseUrl}/connector/v1/jobs/${other.jobId}/document`, {
      authorization: `Bearer ${other.token}`,
      'x-host-id': other.connectorId,
    });
    expect(theirs.status).toBe(200);
    expect(theirs.body.equals(small)).toBe(true);
    expect([gate.active(rig.orgId), gate.waiting(rig.orgId)]).toEqual([2, 1]);

    // A holder hangs up: its slot goes to the one waiting, which gets the whole document.
    holders[0]?.req.destroy();
    const served = await waiting;
    expect(served.status).toBe(200);
    expect(served.body.equals(big)).toBe(true);
    holders[1]?.req.destroy();
    await rig.ctx.documents.settled();
    expect([gate.active(), gate.waiting(), rig.ctx.documents.pool.inUse]).toEqual([0, 0, 0]);
  });

  it('a client that hangs up while waiting leaves the line', async () => {
    const gate = rig.ctx.documents.gate;
    const url = await demoJob(big);
    const holders = [await stalled(url), await stalled(url)];
    const quitter = get(url, { headers: demoAuth() });
    quitter.on('error', () => {});
    await vi.waitFor(() => expect(gate.waiting(rig.orgId)).toBe(1));
    quitter.destroy();
    await vi.waitFor(() => expect(gate.waiting(rig.orgId)).toBe(0));
    for (const holder of holders) holder.req.destroy();
    await rig.ctx.documents.settled();
    expect([gate.active(), gate.waiting()]).toEqual([0, 0]);
    // The slots are all there again: the next downloads go at once.
    const [a, b] = await Promise.all([download(url, demoAuth()), download(url, demoAuth())]);
    expect([a.status, b.status]).toEqual([200, 200]);
  });
});
