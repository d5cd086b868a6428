/**
 * What the webhook queue tests share: a private CA for their HTTPS receivers, a scratch folder
 * for database files, and emulators started on a file and stopped again as a restart would,
 * all cleaned up after the file's tests.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { ManualClock } from '../../src/lib/clock.js';
import {
  type Behaviour,
  type HttpsReceiver,
  makeTestCertificates,
  startHttpsReceiver,
  type TestCertificates,
} from '../support/https-receiver.js';
import { type Harness, startHarness } from './emulator-harness.js';

export interface WebhookTestBed {
  /** The CA the receivers' certificates chain to (set once the file's tests start). */
  readonly certs: TestCertificates;
  /** A scratch folder removed after the file's tests. */
  readonly dir: string;
  /** An HTTPS receiver answering per `behaviour`, closed after the tests. */
  receiver(behaviour: Behaviour): Promise<HttpsReceiver>;
  /**
   * An emulator on database `db` (its sealing keys in `dataDir`) that trusts the receivers' CA;
   * its dispatcher looks at the queue every `pollMs` (default 50) besides when events come.
   */
  start(options: {
    clock: ManualClock;
    db: string;
    dataDir: string;
    perEndpoint: number;
    pollMs?: number;
  }): Promise<Harness>;
  /** Stops an emulator started here, as a restart would. */
  stop(harness: Harness): Promise<void>;
}

/** Registers the bed's set-up and clean-up with the calling test file. */
export function webhookTestBed(prefix: string): WebhookTestBed {
  const receivers: HttpsReceiver[] = [];
  const harnesses: Harness[] = [];
  let certs: TestCertificates | undefined;
  let dir = '';
  beforeAll(async () => {
    certs = await makeTestCertificates();
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    for (const h of harnesses) await h.close();
    await Promise.all(receivers.map((r) => r.close()));
    await certs?.remove();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  const ready = (): TestCertificates => {
    if (!certs) throw new Error('the webhook test bed is used before its beforeAll ran');
    return certs;
  };
  return {
    get certs() {
      return ready();
    },
    get dir() {
      return dir;
    },
    async receiver(behaviour) {
      const r = await startHttpsReceiver(ready(), behaviour);
      receivers.push(r);
      return r;
    },
    async start({ clock, db, dataDir, perEndpoint, pollMs = 50 }) {
      const h = await startHarness({
        clock,
        db,
        dataDir,
        webhooks: { extraCaPem: ready().caPem, timeoutMs: 10_000, pollMs, perEndpoint },
      });
      harnesses.push(h);
      return h;
    },
    async stop(harness) {
      await harness.close();
      harnesses.splice(harnesses.indexOf(harness), 1);
    },
  };
}
