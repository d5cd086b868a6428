/**
 * The demo's release station: the demo stack (emulator, virtual printer, agent) runs a station
 * for "Demo Printer" on a socket:// reader; alice holds a PDF in the "Pull Printing" queue as an
 * app would, the real `printrelay swipe 04A1B2C3D4 --reader ...` process releases it, and it lands
 * byte for byte in DIR/printed. Also: the banner tells how, and the demo config takes another
 * reader from PRINTRELAY_RELEASE_STATIONS__0__READER only.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoInfo, demoBanner } from '../../src/cli/demo-banner.js';

const READER = 'socket://127.0.0.1:4711';
import { demoAgentConfig } from '../../src/cli/demo-agent-config.js';
import { DemoStack } from '../../src/cli/demo-stack.js';
import { DEMO } from '../../src/config/demo-seed.js';
import { silentLogger } from '../../src/log/logger.js';
import { parseSocketUri } from '../../src/cardreader/socket/socket-reader.js';
import { runCli } from '../integration/cli-process.js';
import { peersAvailable } from '../support/peers.js';
import { writePdf } from '../support/pdf.js';
import {
  type AppSession,
  holdDocument,
  QUEUE_PRINTER,
  signIn,
  waitForDocument,
} from './pull-printing-support.js';

describe('the demo release station', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pull-demo-'));
  let terminal = '';
  const releaseOutput = new Writable({
    write(chunk, _encoding, done) {
      terminal += chunk.toString();
      done();
    },
  });
  const stack = new DemoStack({
    host: '127.0.0.1',
    port: 0,
    dataDir: join(dir, 'demo'),
    logger: silentLogger(),
    env: {},
    releaseOutput,
  });
  let info: DemoInfo;
  let alice: AppSession;

  beforeAll(async () => {
    info = await stack.start();
    alice = await signIn(info.url, DEMO.user.email, DEMO.user.password);
  }, 60_000);

  afterAll(async () => {
    await alice?.close();
    await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs a station for "Demo Printer" on a socket reader, and the banner says how to use it', () => {
    expect(info.release).toMatchObject({ printer: DEMO.printer.name, queue: QUEUE_PRINTER, running: true });
    expect(info.release?.reader).toMatch(/^socket:\/\/127\.0\.0\.1:\d+$/);
    const banner = demoBanner(info);
    expect(banner).toContain(`print docs/sample.pdf --printer "${QUEUE_PRINTER}" --url ${info.url}`);
    expect(banner).toContain(`node bin/printrelay.js swipe ${DEMO.user.card} --data-dir ${info.dataDir}\n`);
  });

  it("printrelay swipe 04A1B2C3D4 --data-dir DIR finds this demo's reader and releases a held job into DIR/printed", async () => {
    const file = await writePdf(join(dir, 'held.pdf'), 1, 'demo pull printing');
    const bytes = readFileSync(file);
    const heldId = await holdDocument(alice.sfapi, file, 'held.pdf');
    expect((await alice.sfapi.status(heldId)).jobstatus).toBe(1246);

    const result = await runCli(['swipe', DEMO.user.card, '--data-dir', info.dataDir]);

    // the station answers over the reader socket: what the swipe released, with its pages
    expect(result).toMatchObject({ code: 0, stdout: `released "held.pdf" (job ${heldId}): 1 page(s)\n` });
    expect(result.stderr).toBe(
      `using reader ${info.release?.reader} (from ${join(info.dataDir, 'agent.yaml')})\n`,
    );
    await waitForDocument(info.printedDir, (printed) => printed.equals(bytes));
    await expect.poll(() => terminal, { timeout: 10_000 }).toContain('Printed held.pdf');

    const again = await runCli(['swipe', DEMO.user.card, '--data-dir', info.dataDir]);
    expect(again).toMatchObject({
      code: 0,
      stdout: 'nothing to release: no jobs are waiting for this card\n',
    });
    const unknown = await runCli(['swipe', 'FFFF0000', '--data-dir', info.dataDir]);
    expect(unknown).toMatchObject({
      code: 0,
      stdout:
        'card unknown, nothing released: Unknown card: a registration code is being printed on Demo Printer. ' +
        'Enter it in the portal, then swipe again.\n',
    });
  }, 60_000);

  it('a one-way writer (socat) still delivers a card and gets only "ok"', async () => {
    if (!peersAvailable('socat')) return;
    const file = await writePdf(join(dir, 'socat.pdf'), 1, 'swiped with socat');
    const bytes = readFileSync(file);
    await holdDocument(alice.sfapi, file, 'socat.pdf');
    const { host, port } = parseSocketUri(info.release?.reader as string);
    const sent = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(
        'bash',
        ['-c', `printf '${DEMO.user.card}\\n' | socat -t 1 - TCP:${host}:${port}`],
        (error, stdout) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout }),
      );
    });
    expect(sent).toEqual({ code: 0, stdout: 'ok\n' });
    await waitForDocument(info.printedDir, (printed) => printed.equals(bytes));
  }, 60_000);

  it('printrelay swipe --no-wait only delivers the card', async () => {
    const result = await runCli(['swipe', DEMO.user.card, '--data-dir', info.dataDir, '--no-wait']);
    expect(result).toMatchObject({ code: 0, stdout: 'ok\n' });
  });

  it('without a demo in the data directory, swipe says how to name the reader', async () => {
    const empty = join(dir, 'no-demo');
    const result = await runCli(['swipe', DEMO.user.card, '--data-dir', empty]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `error: --reader: not given, and ${join(empty, 'agent.yaml')} does not exist; start the demo ` +
        `(printrelay demo --data-dir ${empty}), name its data directory with --data-dir, or give --reader socket://HOST:PORT\n`,
    );
  });

  it('the demo config takes the reader it is given, and another one from the environment', () => {
    const plain = demoAgentConfig('http://127.0.0.1:8080', 'ipp://127.0.0.1:1/ipp/print', {
      reader: READER,
      env: { PRINTRELAY_CLOUD__URL: 'http://elsewhere:1' },
    });
    expect(plain.cloud.url).toBe('http://127.0.0.1:8080');
    expect(plain.release_stations).toEqual([
      expect.objectContaining({
        reader: READER,
        printer: DEMO.printer.name,
        password: DEMO.printer.pullPrintingPassword,
        mode: 'all',
      }),
    ]);
    const serial = demoAgentConfig('http://127.0.0.1:8080', 'ipp://127.0.0.1:1/ipp/print', {
      reader: READER,
      env: { PRINTRELAY_RELEASE_STATIONS__0__READER: 'serial:///dev/ttyUSB0?baud=9600' },
    });
    expect(serial.release_stations[0]?.reader).toBe('serial:///dev/ttyUSB0?baud=9600');
    expect(demoAgentConfig('http://127.0.0.1:8080', 'ipp://127.0.0.1:1/ipp/print').release_stations).toEqual(
      [],
    );
  });
});
