/**
 * Pairing the agent with the real emulator: the pairing client's polling (pending, slow_down
 * with back-off, expired, denied), the whole `pairConnector` flow followed by an Agent that runs
 * on the stored tokens alone, and `printrelay agent pair` as a real process followed by
 * `printrelay agent` without username or password.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import {
  CONNECTOR_TOKEN_SCOPE,
  type PairingCode,
  PairingError,
  pairConnector,
  requestPairingCode,
  waitForPairing,
} from '../../src/client/pairing-client.js';
import { tokensPath } from '../../src/client/token-store.js';
import { parseAgentConfig } from '../../src/config/load-config.js';
import { silentLogger } from '../../src/log/logger.js';
import { CliProcess } from './cli-process.js';
import { DEMO, type Harness, startHarness } from './emulator-harness.js';
import { oauthTestSeed, TEST_CLIENTS } from './emulator-oauth-harness.js';

describe('pairing an agent', () => {
  let h: Harness;
  let dir: string;
  const processes: CliProcess[] = [];

  beforeAll(async () => {
    h = await startHarness({ seed: oauthTestSeed() });
  });
  afterAll(async () => h?.close());
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-pair-'));
  });
  afterEach(async () => {
    await Promise.all(processes.splice(0).map((p) => p.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  const settings = () => ({ authUrl: h.baseUrl, clientId: DEMO.client.id, clientSecret: DEMO.client.secret });
  const pairings = () => h.emulator.app.emulator.pairings;
  /** Records waits instead of sleeping; the emulator's clock moves by the same amount. */
  const fakeSleep = (waits: number[], onWait?: (n: number) => void) => async (ms: number) => {
    waits.push(ms);
    h.clock.advance(ms);
    onWait?.(waits.length);
  };

  function agentYaml(extra: Record<string, unknown> = {}): string {
    const path = join(dir, 'agent.yaml');
    const cloud = { url: h.baseUrl, client_id: DEMO.client.id, client_secret: DEMO.client.secret, ...extra };
    writeFileSync(path, stringify({ version: 1, cloud, connector: { name: 'Paired connector' } }));
    return path;
  }

  it('asks for a code with auth_url, expiry and interval', async () => {
    const code = await requestPairingCode(settings(), CONNECTOR_TOKEN_SCOPE);
    expect(code.pairing_code).toMatch(/^[A-Z0-9]{8,12}$/);
    expect(code.auth_url).toContain(encodeURIComponent(`pairing_code=${code.pairing_code}`));
    expect(code.expires_in).toBeGreaterThan(0);
    expect(code.interval).toBeGreaterThan(0);
  });

  it('waits through authorization_pending, then stores the tokens the agent runs on', async () => {
    const waits: number[] = [];
    let shown: PairingCode | undefined;
    const file = tokensPath(dir);
    const paired = await pairConnector({
      settings: settings(),
      tokensFile: file,
      clock: h.clock,
      logger: silentLogger(),
      onCode: (code) => {
        shown = code;
      },
      onPending: (attempt) => {
        if (attempt === 2 && shown) pairings().approvePairing(shown.pairing_code, DEMO.admin.email);
      },
      sleep: fakeSleep(waits),
    });
    expect(paired.scope).toBe(CONNECTOR_TOKEN_SCOPE);
    expect(waits).toEqual([5000, 5000]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    expect(stored.refresh_token).toEqual(expect.any(String));

    const config = parseAgentConfig(readFileSync(agentYaml(), 'utf8'), 'agent.yaml', { env: {} });
    expect(config.cloud.password).toBeUndefined();
    const agent = new Agent({ config, dataDir: dir, logger: silentLogger() });
    try {
      await agent.start();
      expect(agent.connectorId).toEqual(expect.any(String));
    } finally {
      await agent.stop();
    }
  });

  it('backs off on slow_down (interval + 5 s each time)', async () => {
    const code = await requestPairingCode(settings(), CONNECTOR_TOKEN_SCOPE);
    const waits: number[] = [];
    // Polls come 1 s apart by the emulator's clock: too fast for its 5 s interval.
    const sleep = async (ms: number) => {
      waits.push(ms);
      h.clock.advance(1000);
      if (waits.length === 3) {
        pairings().approvePairing(code.pairing_code, DEMO.admin.email);
        h.clock.advance(60_000);
      }
    };
    const tokens = await waitForPairing(settings(), code, CONNECTOR_TOKEN_SCOPE, {
      clock: h.clock,
      logger: silentLogger(),
      intervalMs: 1000,
      sleep,
    });
    expect(tokens.access_token).toEqual(expect.any(String));
    expect(waits).toEqual([1000, 6000, 11_000]);
  });

  it('ends with a clear error when the code expires', async () => {
    const code = await requestPairingCode(settings(), CONNECTOR_TOKEN_SCOPE);
    const waits: number[] = [];
    const error = await waitForPairing(settings(), code, CONNECTOR_TOKEN_SCOPE, {
      clock: h.clock,
      logger: silentLogger(),
      sleep: fakeSleep(waits, () => h.clock.advance((code.expires_in ?? 600) * 1000)),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PairingError);
    expect((error as PairingError).code).toBe('expired_token');
    expect((error as Error).message).toMatch(/expired before anyone signed in.*printrelay agent pair/);
    expect(waits).toHaveLength(1);
  });

  it('ends with a clear error when another organization signs in to a single-tenant client', async () => {
    const tenant = {
      ...settings(),
      clientId: TEST_CLIENTS.tenant.id,
      clientSecret: TEST_CLIENTS.tenant.secret,
    };
    const code = await requestPairingCode(tenant, CONNECTOR_TOKEN_SCOPE);
    expect(() => pairings().approvePairing(code.pairing_code, DEMO.otherAdmin.email)).toThrow();
    const error = await waitForPairing(tenant, code, CONNECTOR_TOKEN_SCOPE, {
      clock: h.clock,
      logger: silentLogger(),
      sleep: fakeSleep([]),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PairingError);
    // A single-tenant client of the organization: a code bound from another organization is refused at the
    // token endpoint with unauthorized_client, and the message carries the service's reason.
    expect((error as PairingError).code).toBe('unauthorized_client');
    expect((error as Error).message).toMatch(
      /refused the pairing: unauthorized_client: tenant_mode single: .*another organization/,
    );
  });

  it('refuses a client that may not pair, naming the reason', async () => {
    const error = await requestPairingCode(
      { ...settings(), clientSecret: 'wrong' },
      CONNECTOR_TOKEN_SCOPE,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PairingError);
    expect((error as Error).message).toMatch(/^POST \/oauth\/pair\/ refused: invalid_client/);
  });

  it('`printrelay agent pair` prints the code, stores the tokens, and `printrelay agent` runs on them', async () => {
    const config = agentYaml();
    const dataDir = join(dir, 'data');
    const pair = new CliProcess(['agent', 'pair', '--config', config, '--data-dir', dataDir]);
    processes.push(pair);
    const code = (await pair.waitFor(/^Pairing code: (\S+)$/m))[1]!;
    expect(pair.stdout).toContain(`pairing_code%3D${code}`);
    await pair.waitFor(/^Waiting for the sign-in/m);
    pairings().approvePairing(code, DEMO.admin.email);
    h.clock.advance(10_000);
    expect(await pair.exited).toBe(0);
    expect(pair.stdout).toContain(`Paired. Tokens stored in ${tokensPath(dataDir)}`);
    expect(statSync(tokensPath(dataDir)).mode & 0o777).toBe(0o600);
    expect(pair.stdout).not.toContain(JSON.parse(readFileSync(tokensPath(dataDir), 'utf8')).refresh_token);

    const agent = new CliProcess(['agent', '--config', config, '--data-dir', dataDir, '--no-pretty']);
    processes.push(agent);
    await agent.waitFor(/"msg":"agent running"/);
    expect(await agent.stop()).toBe(0);
  });

  it('`printrelay agent pair` exits 1 with a clear message when the code expires', async () => {
    const pair = new CliProcess(['agent', '--config', agentYaml(), 'pair', '--data-dir', join(dir, 'data')]);
    processes.push(pair);
    await pair.waitFor(/^Waiting for the sign-in/m);
    h.clock.advance(3600_000);
    expect(await pair.exited).toBe(1);
    expect(pair.stderr).toMatch(/^error: pairing failed: the pairing code expired/m);
  });

  it('`printrelay agent` without tokens or password says to pair first', async () => {
    const agent = new CliProcess(['agent', '--config', agentYaml(), '--data-dir', join(dir, 'empty')]);
    processes.push(agent);
    expect(await agent.exited).toBe(1);
    expect(agent.stderr + agent.stdout).toMatch(/pair the agent first/);
  });
});
