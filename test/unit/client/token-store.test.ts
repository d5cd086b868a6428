import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TokenResponse } from '../../../src/client/oauth-client.js';
import { OAuthError } from '../../../src/client/oauth-client.js';
import { TokenStore, writeFileAtomic } from '../../../src/client/token-store.js';
import { ManualClock } from '../../../src/lib/clock.js';
import { silentLogger } from '../../../src/log/logger.js';

/** A token server that, like the real one, accepts each refresh token once. */
class FakeTokenServer {
  valid = new Set<string>(['r0']);
  counter = 0;
  calls = 0;
  async refresh(token: string): Promise<TokenResponse> {
    this.calls++;
    await new Promise((r) => setTimeout(r, 5));
    if (!this.valid.delete(token)) throw new OAuthError('invalid_grant', 'refresh token spent');
    this.counter++;
    const next = `r${this.counter}`;
    this.valid.add(next);
    return { access_token: `a${this.counter}`, token_type: 'Bearer', expires_in: 3600, refresh_token: next };
  }
}

describe('TokenStore', () => {
  let dir: string;
  let path: string;
  let clock: ManualClock;
  let server: FakeTokenServer;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tokens-'));
    path = join(dir, 'tokens.json');
    clock = new ManualClock();
    server = new FakeTokenServer();
    writeFileAtomic(
      path,
      JSON.stringify({ access_token: 'a0', access_expires_at: clock.now() + 3600_000, refresh_token: 'r0' }),
    );
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const make = (persist?: (p: string, d: string) => void) =>
    new TokenStore({
      path,
      clock,
      logger: silentLogger(),
      grants: { refresh: (t) => server.refresh(t) },
      persist,
    });

  it('returns the stored token while valid and refreshes ahead of expiry', async () => {
    const store = make();
    expect(await store.token()).toBe('a0');
    clock.advance(3600_000 - 30_000);
    expect(await store.token()).toBe('a1');
    const saved = JSON.parse(readFileSync(path, 'utf8'));
    expect(saved.refresh_token).toBe('r1');
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('concurrent callers share one refresh', async () => {
    const store = make();
    clock.advance(3600_000);
    const tokens = await Promise.all([store.token(), store.token(), store.token()]);
    expect(tokens).toEqual(['a1', 'a1', 'a1']);
    expect(server.calls).toBe(1);
  });

  it('persists the rotated refresh token before the new access token is handed out', async () => {
    const seen: string[] = [];
    const store = make((p, d) => {
      seen.push(`persist ${JSON.parse(d).refresh_token}`);
      writeFileAtomic(p, d);
    });
    clock.advance(3600_000);
    const token = await store.token();
    seen.push(`use ${token}`);
    expect(seen).toEqual(['persist r1', 'use a1']);
  });

  it('a crash between persist and use never loses the token: a new process refreshes with the saved one', async () => {
    const store = make();
    clock.advance(3600_000);
    await store.token();
    // the process dies here; a new one reads the file and must hold the live refresh token
    const restarted = make();
    restarted.invalidate('a1');
    clock.advance(3600_000);
    expect(await restarted.token()).toBe('a2');
    expect(server.valid).toEqual(new Set(['r2']));
  });

  it('a failed persist hands out no token and leaves the old file intact', async () => {
    const store = make(() => {
      throw new Error('disk full');
    });
    clock.advance(3600_000);
    await expect(store.token()).rejects.toThrow('disk full');
    expect(JSON.parse(readFileSync(path, 'utf8')).refresh_token).toBe('r0');
  });

  it('invalidate() forces a refresh for the rejected token only', async () => {
    const store = make();
    store.invalidate('something-else');
    expect(await store.token()).toBe('a0');
    store.invalidate('a0');
    expect(await store.token()).toBe('a1');
  });

  it('falls back to the password grant when the refresh token is refused', async () => {
    server.valid.clear();
    const store = new TokenStore({
      path,
      clock,
      logger: silentLogger(),
      grants: {
        refresh: (t) => server.refresh(t),
        password: async () => ({
          access_token: 'pw',
          token_type: 'Bearer',
          expires_in: 3600,
          refresh_token: 'rp',
        }),
      },
    });
    store.invalidate('a0');
    expect(await store.token()).toBe('pw');
    expect(JSON.parse(readFileSync(path, 'utf8')).refresh_token).toBe('rp');
  });

  it('says to pair when there is nothing to refresh with', async () => {
    rmSync(path);
    await expect(make().token()).rejects.toThrow('pair the agent first');
  });
});
