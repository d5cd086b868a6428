/**
 * /TPFM/ checks a device password once per HTTP connection (connection-proofs.ts), over real
 * HTTP with one kept-alive connection per undici Client: a repeated command on the same
 * connection runs no password check, a new connection does; a password changed by the admin
 * (pairing again), a password removed, a user deleted (its card gone) and pull printing switched
 * off are all refused on the very next request of a connection that proved the old state; a
 * proof ends when the hasher forgets the match, so the full check renews that memory.
 */
import { Client } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorContext } from '../../src/emulator/context.js';
import {
  ALICE_CARD,
  DEVICE_PASSWORD,
  DEMO,
  startTpfmHarness,
  type TpfmHarness,
} from './emulator-tpfm-harness.js';

let h: TpfmHarness;
let ctx: EmulatorContext;

beforeAll(async () => {
  h = await startTpfmHarness();
  ctx = h.emulator.app.emulator;
});
afterAll(async () => {
  await h.close();
});

/** One connection: an undici Client keeps one, kept alive between its calls. */
function connection(): Client {
  return new Client(h.baseUrl, { pipelining: 1 });
}

async function getJobList(client: Client, user: string, password: string, printer?: string) {
  const query = new URLSearchParams({ Cmd: 'GetJobList', ...(printer ? { Printer: printer } : {}) });
  const res = await client.request({
    method: 'GET',
    path: `/TPFM/?${query}`,
    headers: {
      'x-lang-id': 'en',
      'x-fmp-user-agent': 'PrintRelay proof test',
      authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
    },
  });
  await res.body.dump();
  return { status: res.statusCode, code: res.headers['x-fmp-return'] };
}

/** Password checks the emulator ran so far (scrypt runs and remembered successes). */
function checks(): number {
  const stats = ctx.credentials.hasher.stats();
  return stats.scryptRuns + stats.cacheHits;
}

async function pair(printerId: string, code: string): Promise<void> {
  const res = await fetch(`${h.baseUrl}/printing/v1/printers/${printerId}/pull_printing_pairing`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${h.adminToken}` },
    body: JSON.stringify({ code }),
  });
  expect(res.status).toBe(200);
}

describe('device checks per connection', () => {
  it('checks the password once per connection and header, again on a new connection', async () => {
    const first = connection();
    const second = connection();
    try {
      expect(await getJobList(first, ALICE_CARD, DEVICE_PASSWORD)).toEqual({ status: 200, code: '0' });
      const afterFirst = checks();
      for (let i = 0; i < 3; i++)
        expect(await getJobList(first, ALICE_CARD, DEVICE_PASSWORD)).toEqual({ status: 200, code: '0' });
      expect(checks()).toBe(afterFirst);
      expect(await getJobList(second, ALICE_CARD, DEVICE_PASSWORD)).toEqual({ status: 200, code: '0' });
      expect(checks()).toBe(afterFirst + 1);
      // Another Printer parameter is another proof, checked once.
      expect(await getJobList(first, ALICE_CARD, DEVICE_PASSWORD, DEMO.printer.name)).toMatchObject({
        status: 200,
      });
      expect(checks()).toBe(afterFirst + 2);
      // A proof lasts only while the hasher remembers the match (10 minutes of the clock): then
      // the next request is checked in full, which renews that memory.
      h.clock.advance(10 * 60_000);
      expect(await getJobList(first, ALICE_CARD, DEVICE_PASSWORD)).toEqual({ status: 200, code: '0' });
      const renewed = ctx.credentials.hasher.stats().scryptRuns;
      expect(checks()).toBe(afterFirst + 3);
      expect(await getJobList(first, ALICE_CARD, DEVICE_PASSWORD)).toEqual({ status: 200, code: '0' });
      expect(checks()).toBe(afterFirst + 3);
      expect(ctx.credentials.hasher.stats().scryptRuns).toBe(renewed);
      // A wrong password on a connection that proved the right one is checked, and refused.
      expect((await getJobList(first, ALICE_CARD, 'not-the-password')).status).toBe(401);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('refuses the old password on the next request after the admin pairs a new one', async () => {
    const client = connection();
    try {
      await pair(h.xpsPrinterId, 'station-old-1');
      expect((await getJobList(client, ALICE_CARD, 'station-old-1')).status).toBe(200);
      expect((await getJobList(client, ALICE_CARD, 'station-old-1')).status).toBe(200);
      await pair(h.xpsPrinterId, 'station-new-2');
      expect((await getJobList(client, ALICE_CARD, 'station-old-1')).status).toBe(401);
      expect((await getJobList(client, ALICE_CARD, 'station-new-2')).status).toBe(200);
    } finally {
      await client.close();
    }
  });

  it('refuses a device whose password was removed on the next request', async () => {
    const client = connection();
    try {
      await pair(h.xpsPrinterId, 'station-gone-3');
      expect((await getJobList(client, ALICE_CARD, 'station-gone-3', 'XPS Only')).status).toBe(200);
      const org = ctx.store.users.findByEmail(DEMO.user.email)!.organizationId;
      ctx.store.printerSettings.setPullPrintingPasswordHash(org, 'XPS Only', null);
      expect((await getJobList(client, ALICE_CARD, 'station-gone-3', 'XPS Only')).status).toBe(401);
    } finally {
      await client.close();
    }
  });

  it('looks the card up on every request: a deleted user and pull printing switched off count at once', async () => {
    const client = connection();
    const org = ctx.store.users.findByEmail(DEMO.user.email)!.organizationId;
    const now = Date.now();
    const carol = ctx.store.users.create(
      {
        organizationId: org,
        email: 'carol@demo.test',
        passwordHash: 'scrypt$unused',
        firstName: 'Carol',
        lastName: 'Proof',
        roles: ['user'],
        pullPrintingEnabled: true,
      },
      now,
    );
    ctx.store.users.addCard(org, 'CA401CA4', carol.id, now);
    try {
      expect(await getJobList(client, 'CA401CA4', DEVICE_PASSWORD)).toEqual({ status: 200, code: '0' });
      ctx.store.db.prepare('UPDATE users SET pull_printing_enabled = 0 WHERE id = ?').run(carol.id);
      expect(await getJobList(client, 'CA401CA4', DEVICE_PASSWORD)).toEqual({ status: 200, code: '3' });
      ctx.store.users.delete(carol.id);
      expect((await getJobList(client, 'CA401CA4', DEVICE_PASSWORD)).status).toBe(401);
    } finally {
      await client.close();
    }
  });
});
