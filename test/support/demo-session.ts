/** Signing in as one of the demo seed's accounts, and agent configurations for them, for tests and benchmarks. */
import type { HttpClient } from '../../src/client/http-base.js';
import { passwordSession } from '../../src/client/oauth-client.js';
import { stringify } from 'yaml';
import type { AgentConfig } from '../../src/config/agent-schema.js';
import { DEMO } from '../../src/config/demo-seed.js';
import { parseAgentConfig } from '../../src/config/load-config.js';

/** A demo account: alice (the default) or the Demo Org admin. */
export type DemoAccount = { readonly email: string; readonly password: string };

/** Password-grant session of `account` through the demo client; the caller closes `http`. */
export function demoSession(
  url: string,
  account: DemoAccount = DEMO.user,
  scope = 'printing',
  timeoutMs = 120_000,
): Promise<{ http: HttpClient; accessToken: string }> {
  const client = { authUrl: url, clientId: DEMO.client.id, clientSecret: DEMO.client.secret };
  return passwordSession(client, account.email, account.password, scope, timeoutMs);
}

/** The `cloud:` section of an agent YAML that signs in to `url` as the demo seed's admin. */
export function demoCloudSection(url: string) {
  return {
    url,
    client_id: DEMO.client.id,
    client_secret: DEMO.client.secret,
    username: DEMO.admin.email,
    password: DEMO.admin.password,
  };
}

/**
 * An agent configuration that connects to the emulator at `url` as the demo admin, with fast
 * retries for tests; `sections` adds printers, discovery, release stations and so on. It goes
 * through the same parsing and validation as a file.
 */
export function demoAgentConfig(url: string, sections: Record<string, unknown> = {}): AgentConfig {
  const cloud = demoCloudSection(url);
  const jobs = { retry_initial_ms: 20, retry_max_ms: 500, status_poll_ms: 20 };
  return parseAgentConfig(stringify({ version: 1, cloud, jobs, ...sections }), '<test agent config>', {
    env: {},
  });
}
