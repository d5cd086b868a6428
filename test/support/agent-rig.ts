/**
 * What agent integration tests start around the agent: the real emulator in this process on a
 * free port with an app (SfapiClient) signed in as the demo user, and an ippeveprinter whose
 * print command takes a while (a job stays "processing" long enough to act during it).
 * The caller closes/stops what it got.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HttpClient } from '../../src/client/http-base.js';
import { fetchPasswordToken } from '../../src/client/oauth-client.js';
import { SfapiClient } from '../../src/client/sfapi-client.js';
import { DEMO, defaultEmulatorSeed } from '../../src/config/load-config.js';
import { createEmulator, type Emulator } from '../../src/emulator/app.js';
import type { ChannelSettings } from '../../src/emulator/connectors/connector-hub.js';
import type { DownloadLimits } from '../../src/emulator/http/download-gate.js';
import { type Logger, silentLogger } from '../../src/log/logger.js';
import { type RunningIppEvePrinter, startIppEvePrinter } from './ippeveprinter.js';

/** A running emulator and an app signed in to it. */
export interface EmulatorWithApp {
  emulator: Emulator;
  base: string;
  sfapi: SfapiClient;
  /** Closes the app's client and the emulator. */
  close(): Promise<void>;
}

/**
 * Starts the emulator (database and files under `dir`) and signs the demo user's app in;
 * `options` may set its logger, its connector channel's protocol settings and its download caps.
 */
export async function startEmulatorWithApp(
  dir: string,
  options: { logger?: Logger; connectorChannel?: ChannelSettings; downloads?: Partial<DownloadLimits> } = {},
): Promise<EmulatorWithApp> {
  const emulator = await createEmulator({
    db: join(dir, 'emulator.db'),
    dataDir: join(dir, 'emulator'),
    seed: defaultEmulatorSeed(),
    logger: options.logger ?? silentLogger(),
    ...(options.connectorChannel ? { connectorChannel: options.connectorChannel } : {}),
    ...(options.downloads ? { downloads: options.downloads } : {}),
  });
  const base = await emulator.listen('127.0.0.1', 0);
  const settings = { authUrl: base, clientId: DEMO.client.id, clientSecret: DEMO.client.secret };
  const token = await fetchPasswordToken(settings, DEMO.user.email, DEMO.user.password, 'printing');
  const http = new HttpClient({
    baseUrl: base,
    timeoutMs: 10_000,
    tokens: { token: async () => token.access_token, invalidate: () => {} },
  });
  return {
    emulator,
    base,
    sfapi: new SfapiClient(http),
    async close() {
      await http.close();
      await emulator.close();
    },
  };
}

/** An ippeveprinter whose print command sleeps `seconds` per job (script written into `dir`). */
export async function startSlowPrinter(
  dir: string,
  name: string,
  seconds: number,
): Promise<RunningIppEvePrinter> {
  const command = join(dir, 'slow-print.sh');
  writeFileSync(command, `#!/bin/sh\nsleep ${seconds}\n`);
  chmodSync(command, 0o755);
  return startIppEvePrinter({ name, command });
}
