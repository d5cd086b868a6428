/**
 * A crash at any moment of a refresh never locks the agent out. Child processes refresh with a
 * TokenStore against the real emulator and are SIGKILLed at random moments; after each kill a
 * new process refreshes with what is on disk. The window where the server rotated but the
 * client had not written the new tokens is also hit on purpose: the retry key written before
 * the refresh lets the next process fetch the same answer again, while a replay without the key
 * (or after the successor was used, or after the retry window) still revokes the family.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fetchPasswordToken } from '../../src/client/oauth-client.js';
import { TokenStore, tokensPath } from '../../src/client/token-store.js';
import { RETRY_WINDOW_MS } from '../../src/emulator/oauth/refresh-retry-cache.js';
import { sleep } from '../../src/lib/abort.js';
import { systemClock } from '../../src/lib/clock.js';
import { silentLogger } from '../../src/log/logger.js';
import { DEMO, demoBasic, type Harness, startHarness, tokenRequest } from './emulator-harness.js';

const childScript = join(import.meta.dirname, 'token-crash-child.ts');
const SCOPE = 'printing printing.connectors';
const KILLS = 20;

interface Child {
  process: ChildProcess;
  stdout: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

describe('token store under SIGKILL', () => {
  let h: Harness;
  let dir: string;
  let file: string;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'token-crash-'));
    file = tokensPath(dir);
    const settings = { authUrl: h.baseUrl, clientId: DEMO.client.id, clientSecret: DEMO.client.secret };
    const tokens = await fetchPasswordToken(settings, DEMO.admin.email, DEMO.admin.password, SCOPE);
    new TokenStore({
      path: file,
      clock: systemClock,
      logger: silentLogger(),
      grants: { refresh: () => Promise.reject(new Error('not used')) },
    }).save(tokens);
    return () => rmSync(dir, { recursive: true, force: true });
  });

  function start(mode: string): Child {
    const child = spawn(process.execPath, ['--import', 'tsx', childScript], {
      env: {
        ...process.env,
        MODE: mode,
        TOKENS_FILE: file,
        AUTH_URL: h.baseUrl,
        CLIENT_ID: DEMO.client.id,
        CLIENT_SECRET: DEMO.client.secret,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    return { process: child, stdout: () => out, exited };
  }

  async function runOnce(): Promise<{ code: number | null; out: string }> {
    const child = start('once');
    const { code } = await child.exited;
    return { code, out: child.stdout() };
  }

  async function waitForRefresh(child: Child): Promise<void> {
    let done = false;
    void child.exited.then(() => {
      done = true;
    });
    while (!/refreshed 1\n/.test(child.stdout())) {
      if (done) throw new Error(`the child exited before its first refresh: ${child.stdout()}`);
      await sleep(5);
    }
  }

  const onDisk = () => JSON.parse(readFileSync(file, 'utf8')) as Record<string, string | undefined>;

  it(`survives ${KILLS} SIGKILLs at random moments of a refresh loop`, async () => {
    const seenTokens = new Set<string>();
    for (let i = 0; i < KILLS; i++) {
      const child = start('loop');
      // Its first refresh ran with what the previous kill left on disk.
      await waitForRefresh(child);
      await sleep(Math.floor(Math.random() * 40));
      child.process.kill('SIGKILL');
      expect((await child.exited).signal).toBe('SIGKILL');
      seenTokens.add(onDisk()['refresh_token']!);
    }
    const last = await runOnce();
    expect(last.out).toBe(`ok ${SCOPE}\n`);
    expect(last.code).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(seenTokens.size).toBeGreaterThan(1);
  }, 120_000);

  it('a kill after the server rotated, before the file was written, is retried with the same answer', async () => {
    const before = onDisk();
    const dying = start('die-after-rotate');
    expect((await dying.exited).signal).toBe('SIGKILL');
    const left = onDisk();
    expect(left['refresh_token']).toBe(before['refresh_token']);
    expect(left['refresh_retry_key']).toMatch(/^[A-Za-z0-9_-]{32}$/);
    // The server spent that refresh token: without the key it is a replay (checked below).
    const retry = await runOnce();
    expect(retry.out).toBe(`ok ${SCOPE}\n`);
    const after = onDisk();
    expect(after['refresh_token']).not.toBe(before['refresh_token']);
    expect(after['refresh_retry_key']).toBeUndefined();
    // The family is intact: the next refresh works too.
    expect((await runOnce()).code).toBe(0);
  });

  it('two crashes in a row in the window still recover', async () => {
    for (let i = 0; i < 2; i++) expect((await start('die-after-rotate').exited).signal).toBe('SIGKILL');
    expect((await runOnce()).out).toBe(`ok ${SCOPE}\n`);
  });

  it('a replay of the spent token without the retry key revokes the family; the agent says to pair again', async () => {
    expect((await start('die-after-rotate').exited).signal).toBe('SIGKILL');
    const stolen = onDisk()['refresh_token']!;
    const replay = await tokenRequest(
      h.baseUrl,
      { grant_type: 'refresh_token', refresh_token: stolen },
      demoBasic(),
    );
    expect(replay.status).toBe(400);
    expect(replay.body['error']).toBe('invalid_grant');
    const after = await runOnce();
    expect(after.code).toBe(2);
    expect(after.out).toMatch(
      /^error not_paired: the stored refresh token was refused .*printrelay agent pair/,
    );
  });

  it('the retry key does not work once the retry window has passed', async () => {
    expect((await start('die-after-rotate').exited).signal).toBe('SIGKILL');
    h.clock.advance(RETRY_WINDOW_MS + 1000);
    const after = await runOnce();
    expect(after.code).toBe(2);
    expect(after.out).toMatch(/^error not_paired: .*already used/);
  });
});

describe('retry_key at the token endpoint', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  const signIn = async () => {
    const res = await tokenRequest(
      h.baseUrl,
      {
        grant_type: 'password',
        username: DEMO.admin.email,
        password: DEMO.admin.password,
        scope: 'printing',
      },
      demoBasic(),
    );
    return res.body['refresh_token'] as string;
  };
  const refresh = (token: string, retryKey?: string) =>
    tokenRequest(
      h.baseUrl,
      { grant_type: 'refresh_token', refresh_token: token, ...(retryKey ? { retry_key: retryKey } : {}) },
      demoBasic(),
    );
  const key = 'k'.repeat(32);

  it('answers a retry with the same key with the same tokens', async () => {
    const r0 = await signIn();
    const first = await refresh(r0, key);
    const again = await refresh(r0, key);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((await refresh(first.body['refresh_token'] as string)).status).toBe(200);
  });

  it('refuses a retry with another key, and revokes the family', async () => {
    const r0 = await signIn();
    const first = await refresh(r0, key);
    const other = await refresh(r0, 'x'.repeat(32));
    expect(other.body['error']).toBe('invalid_grant');
    expect((await refresh(first.body['refresh_token'] as string)).body['error']).toBe('invalid_grant');
  });

  it('refuses a retry once the returned refresh token was used', async () => {
    const r0 = await signIn();
    const first = await refresh(r0, key);
    const second = await refresh(first.body['refresh_token'] as string, key);
    expect(second.status).toBe(200);
    const late = await refresh(r0, key);
    expect(late.body['error']).toBe('invalid_grant');
    expect((await refresh(second.body['refresh_token'] as string)).body['error']).toBe('invalid_grant');
  });

  it('ignores a malformed key (too short): the reuse is a replay', async () => {
    const r0 = await signIn();
    await refresh(r0, 'short');
    expect((await refresh(r0, 'short')).body['error']).toBe('invalid_grant');
  });
});
