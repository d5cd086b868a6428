/**
 * Pull printing end to end with real parts only: the emulator (demo seed), the agent with the
 * shared ippeveprinter as its printer and a release station whose card reader is a serial port
 * (a socat pseudo-terminal pair; the test types swipes into the other end). Alice prints through
 * /sfapi to the "Pull Printing" queue; a swipe of her card releases her held jobs, which come out
 * of ippeveprinter byte for byte. An unknown card gets a registration code printed on that
 * printer; alice claims it through the portal API, and the same card then releases her job.
 * Every log line of emulator and agent is searched for the card numbers and the device password.
 */
import { demoAgentConfig } from '../support/demo-session.js';
import { logCapture } from '../support/log-capture.js';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import type { SessionSummary } from '../../src/agent/release/release-session.js';
import { CardRegistrationClient } from '../../src/agent/release/card-registration.js';
import { LogReleaseUi } from '../../src/agent/release/release-stations.js';
import { TpfmAuthError, TpfmClient } from '../../src/client/tpfm-client.js';
import { DEMO, defaultEmulatorSeed } from '../../src/config/load-config.js';
import { createEmulator, type Emulator } from '../../src/emulator/app.js';
import { createLogger, silentLogger } from '../../src/log/logger.js';
import { Redactor } from '../../src/log/redaction.js';
import { writePdf } from '../support/pdf.js';
import { peersAvailable } from '../support/peers.js';
import {
  type AppSession,
  claimCode,
  holdDocument,
  pairPullPrinter,
  printerIdOf,
  type PtyPair,
  registrationCodeIn,
  signIn,
  startPtyPair,
  waitForDocument,
} from './pull-printing-support.js';

const havePeers = peersAvailable('ippeveprinter', 'socat');

/** The job number ippeveprinter puts first in a spool file's name (`<job-id>-<name>.<ext>`). */
function printerJobNumber(path: string): number {
  const match = /^(\d+)-/.exec(basename(path));
  if (!match) throw new Error(`${path} is not named <job-id>-<name> by ippeveprinter`);
  return Number(match[1]);
}
const UNKNOWN_CARD = '7F3E19A0C2';

describe.runIf(havePeers)('pull printing: card swipe at a serial reader releases held jobs', () => {
  const work = mkdtempSync(join(tmpdir(), 'pull-e2e-'));
  const suffix = Math.random().toString(36).slice(2, 8);
  const printerName = `Pull E2E ${suffix}`;
  const devicePassword = `pairing-${suffix}-device`;
  const spool = inject('ippeveprinterSpool');
  const { lines, destination } = logCapture();
  const sessions: SessionSummary[] = [];
  /** What the stations showed the person at the printer. */
  const shown: string[] = [];
  let emulator: Emulator;
  let agent: Agent;
  let pty: PtyPair;
  let url: string;
  let alice: AppSession;
  let blocker: Server;

  beforeAll(async () => {
    const redactor = new Redactor();
    const logger = createLogger({ destination, redactor, level: 'debug' });
    pty = await startPtyPair(work);
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const blockerPort = (blocker.address() as AddressInfo).port;
    emulator = await createEmulator({
      db: ':memory:',
      dataDir: join(work, 'emulator'),
      seed: defaultEmulatorSeed(),
      logger: logger.child({ part: 'emulator' }),
    });
    url = (await emulator.listen('127.0.0.1', 0)).replace(/\/+$/, '');
    const config = demoAgentConfig(url, {
      printers: [{ name: printerName, uri: inject('ippeveprinterUri') }],
      release_stations: [
        {
          name: 'e2e serial station',
          reader: `serial://${pty.reader}?baud=9600`,
          printer: printerName,
          pull_url: url,
          password: devicePassword,
          mode: 'all',
        },
        // Two broken stations next to it: neither may stop the agent or the good station.
        {
          name: 'wrong chain',
          reader: 'socket://127.0.0.1:0',
          printer: printerName,
          pull_url: url,
          password: devicePassword,
          transforms: ['no-such-step'],
        },
        {
          name: 'port taken',
          reader: `socket://127.0.0.1:${blockerPort}`,
          printer: printerName,
          pull_url: url,
          password: devicePassword,
        },
      ],
    });
    agent = new Agent({
      config,
      dataDir: join(work, 'agent'),
      logger: logger.child({ part: 'agent' }),
      redactor,
      release: {
        onSessionEnd: (_station, summary) => sessions.push(summary),
        ui: (_config, log) => {
          const inner = new LogReleaseUi(log);
          return {
            message: (kind, text) => {
              shown.push(text);
              inner.message(kind, text);
            },
            progress: (job, event) => inner.progress(job, event),
            choose: (jobs) => inner.choose(jobs),
          };
        },
        retry: { initialMs: 50, maxMs: 200, factor: 2, jitter: 0 },
      },
    });
    await agent.start();
    alice = await signIn(url, DEMO.user.email, DEMO.user.password);
    // The admin pairs the station's code with the printer the agent registered.
    await pairPullPrinter(url, await printerIdOf(alice.sfapi, printerName), devicePassword);
  }, 60_000);

  afterAll(async () => {
    await alice?.close();
    await agent?.stop();
    await emulator?.close();
    await pty?.stop();
    if (blocker?.listening) await new Promise((resolve) => blocker.close(resolve));
    rmSync(work, { recursive: true, force: true });
  });

  /** Types a swipe into the reader's other end and waits for the session it starts to end. */
  async function swipe(card: string): Promise<SessionSummary> {
    const before = sessions.length;
    writeFileSync(pty.test, `${card}\r\n`);
    await expect.poll(() => sessions.length, { timeout: 30_000, interval: 20 }).toBeGreaterThan(before);
    return sessions[before]!;
  }

  async function pdfFor(name: string): Promise<{ path: string; bytes: Buffer }> {
    const path = await writePdf(join(work, `${name}.pdf`), 2, `${name} ${suffix}`);
    return { path, bytes: readFileSync(path) };
  }

  it('the serial station runs; a broken chain is left off, a taken port is retried until it is free', async () => {
    const [serial, chain, port] = agent.releaseStations();
    expect(serial).toMatchObject({ name: 'e2e serial station', state: 'running', printer: printerName });
    expect(chain).toMatchObject({ name: 'wrong chain', state: 'failed' });
    expect(chain?.problem).toContain('no-such-step');
    expect(port).toMatchObject({ name: 'port taken', state: 'retrying' });
    await new Promise((resolve) => blocker.close(resolve));
    await expect
      .poll(() => agent.releaseStations()[2]?.state, { timeout: 10_000, interval: 20 })
      .toBe('running');
  });

  it("alice's card releases both of her held jobs, which come out of ippeveprinter", async () => {
    const first = await pdfFor('first');
    const second = await pdfFor('second');
    const held = [
      await holdDocument(alice.sfapi, first.path, 'first.pdf'),
      await holdDocument(alice.sfapi, second.path, 'second.pdf'),
    ];
    for (const id of held) expect((await alice.sfapi.status(id)).jobstatus).toBe(1246);

    const summary = await swipe(DEMO.user.card);

    expect(summary.reason).toBe('done');
    expect(summary.printed).toHaveLength(2);
    expect(summary.failed).toEqual([]);
    expect(shown).toEqual(expect.arrayContaining(['Printed first.pdf', 'Printed second.pdf']));
    const firstPrinted = await waitForDocument(spool, (bytes) => bytes.equals(first.bytes));
    const secondPrinted = await waitForDocument(spool, (bytes) => bytes.equals(second.bytes));
    // Released side by side, started in list order: ippeveprinter numbers them in that order.
    expect(printerJobNumber(firstPrinted)).toBeLessThan(printerJobNumber(secondPrinted));
    // Released with Delete=1: the queue is empty now.
    const device = new TpfmClient({
      baseUrl: url,
      password: devicePassword,
      userAgent: 'pull e2e check',
      logger: silentLogger(),
    });
    try {
      expect((await device.getJobList(DEMO.user.card, { printer: printerName })).jobs).toEqual([]);
    } finally {
      await device.close();
    }
  }, 60_000);

  it('an unknown card gets a registration code printed; after alice claims it, the card releases', async () => {
    const doc = await pdfFor('after-claim');
    const heldId = await holdDocument(alice.sfapi, doc.path, 'after-claim.pdf');

    const refused = await swipe(UNKNOWN_CARD);
    expect(refused.reason).toBe('error');
    expect(refused.printed).toEqual([]);
    expect(shown.at(-1)).toMatch(/^Unknown card: a registration code is being printed on Pull E2E/);
    const sheet = await waitForDocument(
      spool,
      (bytes) => registrationCodeIn(bytes, printerName) !== undefined,
    );
    const code = registrationCodeIn(readFileSync(sheet), printerName)!;
    expect(code).toMatch(/^\d{6}$/);
    expect((await alice.sfapi.status(heldId)).jobstatus).toBe(1246);

    const claimed = await claimCode(url, alice.token, code);
    expect(claimed).toEqual({ status: 200, json: { card_linked: true } });

    const released = await swipe(UNKNOWN_CARD);
    expect(released.reason).toBe('done');
    expect(released.printed).toHaveLength(1);
    await waitForDocument(spool, (bytes) => bytes.equals(doc.bytes));
    // The code was for one use only.
    expect((await claimCode(url, alice.token, code)).status).toBe(409);
  }, 60_000);

  it('a wrong device password stays an authentication error, not an unknown card', async () => {
    const wrong = new TpfmClient({
      baseUrl: url,
      password: 'not-the-device-password',
      userAgent: 'pull e2e check',
      logger: silentLogger(),
    });
    try {
      const client = new CardRegistrationClient(wrong, printerName);
      await expect(client.getJobList('0DDC0FFEE0', { printer: printerName })).rejects.toBeInstanceOf(
        TpfmAuthError,
      );
    } finally {
      await wrong.close();
    }
  });

  it('no log line holds a card number or the device password', () => {
    const logs = lines.join('');
    expect(logs).toContain('release session started');
    for (const secret of [DEMO.user.card, UNKNOWN_CARD, devicePassword]) expect(logs).not.toContain(secret);
  });
});
