/**
 * The token file a pairing leaves behind and how the TokenStore keeps it safe across crashes:
 * the retry key is on disk before a refresh is sent, survives a failed attempt, is sent again
 * with the same refresh token, and is gone once the rotated tokens are stored.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OAuthError, type TokenResponse } from '../../../src/client/oauth-client.js';
import { removeStaleTempFiles, TokenStore, tokensPath } from '../../../src/client/token-store.js';
import { ManualClock } from '../../../src/lib/clock.js';
import { RetryableError } from '../../../src/lib/errors.js';
import { silentLogger } from '../../../src/log/logger.js';

interface Sent {
  refresh: string;
  retryKey: string | undefined;
  keyOnDisk: string | undefined;
}

describe('token file after pairing', () => {
  let dir: string;
  let path: string;
  let clock: ManualClock;
  let sent: Sent[];
  let answer: (n: number) => Promise<TokenResponse>;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pair-tokens-'));
    path = tokensPath(dir);
    clock = new ManualClock();
    sent = [];
    answer = async (n) => ({
      access_token: `a${n}`,
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: `r${n}`,
    });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const store = (password?: () => Promise<TokenResponse>) =>
    new TokenStore({
      path,
      clock,
      logger: silentLogger(),
      grants: {
        refresh: (refresh, retryKey) => {
          const onDisk = JSON.parse(readFileSync(path, 'utf8')) as { refresh_retry_key?: string };
          sent.push({ refresh, retryKey, keyOnDisk: onDisk.refresh_retry_key });
          return answer(sent.length);
        },
        ...(password ? { password } : {}),
      },
    });

  const disk = () => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;

  it('stores paired tokens with mode 0600 and no retry key', () => {
    store().save({
      access_token: 'a0',
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: 'r0',
      scope: 'printing',
    });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(disk()).toEqual({
      access_token: 'a0',
      access_expires_at: clock.now() + 3600_000,
      refresh_token: 'r0',
      scope: 'printing',
    });
  });

  it('writes the retry key before the refresh is sent and clears it after the rotation is stored', async () => {
    store().save({ access_token: 'a0', token_type: 'Bearer', expires_in: 3600, refresh_token: 'r0' });
    const s = store();
    clock.advance(3600_000);
    expect(await s.token()).toBe('a1');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.refresh).toBe('r0');
    expect(sent[0]!.retryKey).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(sent[0]!.keyOnDisk).toBe(sent[0]!.retryKey);
    expect(disk()['refresh_token']).toBe('r1');
    expect(disk()['refresh_retry_key']).toBeUndefined();
  });

  it('a failed attempt keeps the key; the retry (also by a new process) sends the same token and key', async () => {
    store().save({ access_token: 'a0', token_type: 'Bearer', expires_in: 3600, refresh_token: 'r0' });
    const first = store();
    clock.advance(3600_000);
    answer = async () => {
      throw new RetryableError('network', 'connection reset');
    };
    await expect(first.token()).rejects.toThrow('connection reset');
    await expect(first.token()).rejects.toThrow('connection reset');
    expect(sent[1]!.retryKey).toBe(sent[0]!.retryKey);
    answer = async (n) => ({
      access_token: `a${n}`,
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: `r${n}`,
    });
    const second = store();
    expect(await second.token()).toBe('a3');
    expect(sent.map((s) => s.refresh)).toEqual(['r0', 'r0', 'r0']);
    expect(new Set(sent.map((s) => s.retryKey)).size).toBe(1);
    const next = store();
    clock.advance(3600_000);
    await next.token();
    expect(sent[3]!.refresh).toBe('r3');
    expect(sent[3]!.retryKey).not.toBe(sent[0]!.retryKey);
  });

  it('a refused refresh without a password asks for pairing again', async () => {
    store().save({ access_token: 'a0', token_type: 'Bearer', expires_in: 3600, refresh_token: 'r0' });
    answer = async () => {
      throw new OAuthError(
        'token_refused',
        'token request (refresh_token) refused: HTTP 400: the refresh token was revoked',
      );
    };
    clock.advance(3600_000);
    const error = await store()
      .token()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'not_paired' });
    expect(String((error as Error).message)).toMatch(/was revoked.*printrelay agent pair/);
  });

  it('a refused refresh with a password falls back to the password grant', async () => {
    store().save({ access_token: 'a0', token_type: 'Bearer', expires_in: 3600, refresh_token: 'r0' });
    answer = async () => {
      throw new OAuthError('token_refused', 'refused');
    };
    clock.advance(3600_000);
    const s = store(async () => ({
      access_token: 'p1',
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: 'pr1',
    }));
    expect(await s.token()).toBe('p1');
    expect(disk()['refresh_token']).toBe('pr1');
  });

  it('no tokens and no password: a clear not_paired error', async () => {
    await expect(store().token()).rejects.toMatchObject({ code: 'not_paired' });
    expect(existsSync(path)).toBe(false);
  });

  it('removes temp files of dead writers only', () => {
    const dead = `${path}.999999999.tmp`;
    const mine = `${path}.${process.pid}.tmp`;
    const parent = `${path}.${process.ppid}.tmp`;
    for (const f of [dead, mine, parent]) writeFileSync(f, '{}');
    expect(removeStaleTempFiles(path)).toBe(1);
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(mine)).toBe(true);
    expect(existsSync(parent)).toBe(true);
  });
});
