/**
 * A refresh retried with its retry key after an emulator restart (same database file and data
 * directory) gets the same answer, instead of revoking the sign-in; the remembered answer is
 * sealed, so the database file holds none of its tokens; after the retry window a retry is a
 * replay again.
 */
import { readFile } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RETRY_WINDOW_MS } from '../../src/emulator/oauth/refresh-retry-cache.js';
import { ManualClock } from '../../src/lib/clock.js';
import { DEMO, demoBasic, type Harness, startHarness, tokenRequest } from './emulator-harness.js';

const KEY = 'retry-key-of-the-test-0123456789';

describe('refresh retry key across an emulator restart', () => {
  let dataDir: string;
  let clock: ManualClock;
  let h: Harness | undefined;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'refresh-retry-'));
    clock = new ManualClock(Date.now());
  });
  afterEach(async () => {
    await h?.close();
    h = undefined;
    await rm(dataDir, { recursive: true, force: true });
  });

  const start = async () => {
    await h?.close();
    h = await startHarness({ clock, dataDir, db: join(dataDir, 'emulator.db') });
    return h;
  };
  const refresh = (baseUrl: string, token: string, retryKey?: string) =>
    tokenRequest(
      baseUrl,
      { grant_type: 'refresh_token', refresh_token: token, ...(retryKey ? { retry_key: retryKey } : {}) },
      demoBasic(),
    );
  const signIn = async (baseUrl: string) => {
    const form = {
      grant_type: 'password',
      username: DEMO.admin.email,
      password: DEMO.admin.password,
      scope: 'printing',
    };
    return (await tokenRequest(baseUrl, form, demoBasic())).body['refresh_token'] as string;
  };

  it('answers the retry with the same tokens after a restart, and the family stays usable', async () => {
    const before = await start();
    const r0 = await signIn(before.baseUrl);
    const first = await refresh(before.baseUrl, r0, KEY);
    expect(first.status).toBe(200);
    const after = await start();
    const again = await refresh(after.baseUrl, r0, KEY);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const next = await refresh(after.baseUrl, first.body['refresh_token'] as string);
    expect(next.status).toBe(200);
  });

  it('keeps no token of the remembered answer readable in the database file', async () => {
    const before = await start();
    const first = await refresh(before.baseUrl, await signIn(before.baseUrl), KEY);
    await h?.close();
    h = undefined;
    const files = await Promise.all(
      ['emulator.db', 'emulator.db-wal'].map((f) => readFile(join(dataDir, f)).catch(() => Buffer.alloc(0))),
    );
    const bytes = Buffer.concat(files);
    expect(bytes.includes(first.body['refresh_token'] as string)).toBe(false);
    expect(bytes.includes(first.body['access_token'] as string)).toBe(false);
  });

  it('treats a retry after the window, across a restart, as a replay that revokes the family', async () => {
    const before = await start();
    const r0 = await signIn(before.baseUrl);
    const first = await refresh(before.baseUrl, r0, KEY);
    clock.advance(RETRY_WINDOW_MS + 1000);
    const after = await start();
    const late = await refresh(after.baseUrl, r0, KEY);
    expect(late.status).toBe(400);
    expect(late.body['error_description']).toBe(
      'the refresh token was already used; every token of this sign-in is revoked',
    );
    const successor = await refresh(after.baseUrl, first.body['refresh_token'] as string);
    expect(successor.body['error_description']).toBe('the refresh token was revoked');
  });
});
