/** Signing in as one of the demo seed's accounts, for tests and benchmarks. */
import type { HttpClient } from '../../src/client/http-base.js';
import { passwordSession } from '../../src/client/oauth-client.js';
import { DEMO } from '../../src/config/demo-seed.js';

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
