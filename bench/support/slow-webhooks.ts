/**
 * BENCH_SLOW_WEBHOOKS of bench:e2e: HTTPS receivers with a private CA that take
 * BENCH_WEBHOOK_DELAY_MS per answer, registered as webhook endpoints, so the run shows that slow
 * delivery does not slow printing.
 */
import { writeFileSync } from 'node:fs';
import { fetchPasswordToken } from '../../src/client/oauth-client.js';
import { DEMO } from '../../src/config/demo-seed.js';
import {
  type HttpsReceiver,
  makeTestCertificates,
  startHttpsReceiver,
} from '../../test/support/https-receiver.js';

/** `count` slow receivers; their CA goes to `caFile`; their stops are added to `stops`. */
export async function startSlowReceivers(
  count: number,
  delayMs: number,
  caFile: string,
  stops: (() => Promise<void>)[],
): Promise<HttpsReceiver[]> {
  if (count <= 0) return [];
  const certs = await makeTestCertificates();
  stops.push(() => certs.remove());
  writeFileSync(caFile, certs.caPem);
  const receivers: HttpsReceiver[] = [];
  for (let i = 0; i < count; i += 1) {
    const receiver = await startHttpsReceiver(certs, () => ({ status: 200, delayMs }));
    stops.unshift(() => receiver.close());
    receivers.push(receiver);
  }
  return receivers;
}

/** The endpoints registered for the receivers. */
export interface RegisteredEndpoints {
  ids: string[];
  /** Disables (no event is queued for them, none delivered) or enables every one of them. */
  setDisabled(disabled: boolean): Promise<void>;
}

/** Registers one webhook endpoint per receiver (both topics) with an admin token. */
export async function registerEndpoints(
  url: string,
  receivers: HttpsReceiver[],
): Promise<RegisteredEndpoints> {
  if (receivers.length === 0) return { ids: [], setDisabled: async () => undefined };
  const settings = { authUrl: url, clientId: DEMO.client.id, clientSecret: DEMO.client.secret };
  const { access_token } = await fetchPasswordToken(
    settings,
    DEMO.admin.email,
    DEMO.admin.password,
    'webhooks',
  );
  const authorization = `Bearer ${access_token}`;
  const ids: string[] = [];
  for (const [i, receiver] of receivers.entries()) {
    const res = await fetch(`${url}/webhooks/endpoints`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `Slow receiver ${i + 1}`, url: receiver.url }),
    });
    if (res.status !== 201) throw new Error(`webhook endpoint: ${res.status} ${await res.text()}`);
    ids.push(((await res.json()) as { endpoint_id: string }).endpoint_id);
  }
  return {
    ids,
    setDisabled: async (disabled) => {
      for (const id of ids) {
        const res = await fetch(`${url}/webhooks/endpoints/${id}`, {
          method: 'PATCH',
          headers: { authorization, 'content-type': 'application/merge-patch+json' },
          body: JSON.stringify({ disabled }),
        });
        if (res.status !== 200) throw new Error(`webhook endpoint ${id}: ${res.status} ${await res.text()}`);
      }
    },
  };
}
