/**
 * Copy accounting inside the agent: a release station with a socket card reader and
 * `copy_jobs.sources: [http]`; curl plays the embedded device app posting copy events to the
 * agent's endpoint with the device secret. A card swipe starts the session, `remove` ends it,
 * the copy job reaches the emulator, the station's UI shows what was recorded, and the agent
 * reports it (copyJobs, outboxStats). Wrong secrets are refused in constant time and a client
 * that keeps failing is locked out. No log line holds the device secret or the card number.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { sendSwipe } from '../../src/cardreader/socket/socket-reader.js';
import { DEMO, defaultEmulatorSeed } from '../../src/config/load-config.js';
import { createEmulator, type Emulator } from '../../src/emulator/app.js';
import { LocalJobService } from '../../src/emulator/pull/local-jobs/local-job-service.js';
import { createLogger, silentLogger } from '../../src/log/logger.js';
import { Redactor } from '../../src/log/redaction.js';
import { demoAgentConfig } from '../support/demo-session.js';
import { logCapture } from '../support/log-capture.js';
import { freePort, peersAvailable } from '../support/peers.js';

const run = promisify(execFile);
const haveCurl = peersAvailable('curl');
const SECRET: string = DEMO.printer.pullPrintingPassword;

describe.runIf(haveCurl)('copy events from a device app, counted by the agent', () => {
  const work = mkdtempSync(join(tmpdir(), 'copyjobs-agent-'));
  const { lines, destination } = logCapture();
  const shown: string[] = [];
  let emulator: Emulator;
  let agent: Agent;
  let reader: string;
  let events: string;

  /** curl as the device app: POST one event; resolves with the HTTP status and body. */
  async function post(body: string, secret = SECRET, station = 'front'): Promise<[number, string]> {
    const { stdout } = await run('curl', [
      '-s',
      '-w',
      '\n%{http_code}',
      '-X',
      'POST',
      '-H',
      'content-type: application/json',
      '-H',
      `authorization: Bearer ${secret}`,
      '--data',
      body,
      `${events}/copy-events/${encodeURIComponent(station)}`,
    ]);
    const at = stdout.lastIndexOf('\n');
    return [Number(stdout.slice(at + 1)), stdout.slice(0, at)];
  }

  beforeAll(async () => {
    const redactor = new Redactor();
    const logger = createLogger({ destination, redactor, level: 'debug' });
    emulator = await createEmulator({
      db: ':memory:',
      dataDir: join(work, 'emulator'),
      seed: defaultEmulatorSeed(),
      logger: silentLogger(),
    });
    const url = (await emulator.listen('127.0.0.1', 0)).replace(/\/+$/, '');
    reader = `socket://127.0.0.1:${await freePort()}`;
    const config = demoAgentConfig(url, {
      printers: [{ name: DEMO.printer.name, uri: 'virtual://copyjobs' }],
      release_stations: [
        {
          name: 'front',
          reader,
          printer: DEMO.printer.name,
          pull_url: url,
          password: SECRET,
          copy_jobs: { sources: ['http'], paper_id: 9 },
        },
      ],
      copy_events: { port: 0, max_failures: 3, lockout_s: 60 },
    });
    agent = new Agent({
      config,
      dataDir: join(work, 'agent'),
      logger,
      redactor,
      release: {
        ui: () => ({
          message: (_kind, text) => shown.push(text),
          progress: () => {},
          choose: async (jobs) => ({ print: jobs, delete: [] }),
        }),
      },
    });
    await agent.start();
    events = agent.copyEventsUrl as string;
  });

  afterAll(async () => {
    await agent?.stop();
    await emulator?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('records a session of posted copy runs as one local job at the emulator', async () => {
    expect(await post('{"pages":2}')).toEqual([409, '{"error":"no card session at this station"}']);
    await sendSwipe(reader, DEMO.user.card);
    await expect.poll(() => shown.includes('No jobs waiting')).toBe(true);
    expect(await post('{"pages":3,"copies":3,"color_pages":3}')).toEqual([202, '{"recorded":true}']);
    expect(await post('{"pages":4,"duplex":true,"sheets":2}')).toEqual([202, '{"recorded":true}']);
    expect(await post('{"pages":0,"colour":1}')).toEqual([
      400,
      '{"error":"invalid copy event","problems":["colour: is not a field of a copy event","pages: must be an integer from 1 to 1000000"]}',
    ]);
    await sendSwipe(reader, 'remove');
    await expect.poll(() => agent.copyJobs()[0]?.deliveredStatus, { timeout: 10_000 }).toBe('Succeeded');
    const [record] = agent.copyJobs({ userId: DEMO.user.card });
    expect(record).toMatchObject({
      station: 'front',
      source: 'http',
      tracking: 'pending',
      fields: {
        Copies: 1,
        PaperId: 9,
        TotalPrintedPages: 7,
        TotalPrintedColorPages: 3,
        Color: 1,
        TotalPrintedSheets: 5,
        Duplex: 1,
      },
    });
    const cloud = new LocalJobService(
      emulator.app.emulator.store,
      { now: () => Date.now() },
      silentLogger(),
    ).find(record!.cloudJobId!);
    expect(cloud).toMatchObject({ type: 'Copy', state: 'Succeeded', fields: record!.fields });
    expect(shown).toContain('Copies recorded: 7 pages (3 in colour)');
    expect(agent.outboxStats()).toMatchObject({ depth: 0, byKind: { 'local-job': { depth: 0 } } });
  });

  it('refuses wrong secrets and unknown stations, then locks the client out', async () => {
    expect(await post('{"pages":1}', 'not-the-secret')).toEqual([
      401,
      '{"error":"device secret not accepted"}',
    ]);
    expect(await post('{"pages":1}', SECRET, 'nowhere')).toEqual([
      401,
      '{"error":"device secret not accepted"}',
    ]);
    expect(await post('{"pages":1}', 'x')).toEqual([401, '{"error":"device secret not accepted"}']);
    const [status, body] = await post('{"pages":1}', SECRET);
    expect([status, body]).toEqual([429, '{"error":"too many failed authentications"}']);
    const all = lines.join('');
    expect(all).toContain('locked out');
    expect(all).not.toContain(SECRET);
    expect(all).not.toContain(DEMO.user.card);
  });
});
