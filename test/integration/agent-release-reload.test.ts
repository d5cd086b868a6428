/**
 * Release stations are created only once the configuration names one: an agent started without
 * any has none (and loads none of their modules, see agent-modules.test.ts); a reload that adds
 * the first one starts it, and a card swiped at its socket reader opens a release session.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { sendSwipe } from '../../src/cardreader/socket/socket-reader.js';
import { DEMO, defaultEmulatorSeed } from '../../src/config/load-config.js';
import { createEmulator, type Emulator } from '../../src/emulator/app.js';
import { silentLogger } from '../../src/log/logger.js';
import { demoAgentConfig } from '../support/demo-session.js';
import { freePort } from '../support/peers.js';

describe('release stations added by a reload', () => {
  const work = mkdtempSync(join(tmpdir(), 'release-reload-'));
  const shown: string[] = [];
  let emulator: Emulator;
  let agent: Agent;
  let url: string;

  beforeAll(async () => {
    emulator = await createEmulator({
      db: ':memory:',
      dataDir: join(work, 'emulator'),
      seed: defaultEmulatorSeed(),
      logger: silentLogger(),
    });
    url = (await emulator.listen('127.0.0.1', 0)).replace(/\/+$/, '');
    agent = new Agent({
      config: demoAgentConfig(url, {
        printers: [{ name: DEMO.printer.name, uri: 'virtual://release-reload' }],
      }),
      dataDir: join(work, 'agent'),
      logger: silentLogger(),
      release: {
        ui: () => ({
          message: (_kind, text) => shown.push(text),
          progress: () => {},
          choose: async (jobs) => ({ print: jobs, delete: [] }),
        }),
      },
    });
    await agent.start();
  });

  afterAll(async () => {
    await agent?.stop();
    await emulator?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('starts none without a station, then the first one a reload adds', async () => {
    expect(agent.releaseStations()).toEqual([]);
    const reader = `socket://127.0.0.1:${await freePort()}`;
    const changes = await agent.reload(
      demoAgentConfig(url, {
        printers: [{ name: DEMO.printer.name, uri: 'virtual://release-reload' }],
        release_stations: [
          {
            name: 'lobby',
            reader,
            printer: DEMO.printer.name,
            pull_url: url,
            password: DEMO.printer.pullPrintingPassword,
          },
        ],
      }),
    );
    expect(changes.readers.added).toEqual(['lobby']);
    expect(agent.releaseStations().map((s) => s.name)).toEqual(['lobby']);
    await expect.poll(() => agent.releaseStations()[0]?.state, { timeout: 10_000 }).toBe('running');
    await sendSwipe(reader, DEMO.user.card);
    await expect.poll(() => shown.includes('No jobs waiting'), { timeout: 10_000 }).toBe(true);
  });
});
