/**
 * A print option the printer lacks reaches the user, not only the agent's log: the whole loop
 * (emulator, agent, a real ippeveprinter) prints with `printrelay print --tray "Tray 9"`; the
 * agent's printing event carries what was not applied, the job's Status text shows it after the
 * flags, and the CLI prints it under the `printed:` line.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningIppEvePrinter, startIppEvePrinter } from '../support/ippeveprinter.js';
import { peersAvailable } from '../support/peers.js';
import { startWholeLoop, type WholeLoop } from '../support/whole-loop.js';
import { runCli } from './cli-process.js';

const enabled = peersAvailable('ippeveprinter');
// ippeveprinter's trays (media-source-supported auto, main, manual, by-pass-tray) are listed as
// Automatic, Main tray, Manual feed and Bypass tray; it has no "Tray 9".
const PRINTER = 'Tray Test Printer';
const sample = join(import.meta.dirname, '..', '..', 'docs', 'sample.pdf');
const NOTE = 'tray: "Tray 9" is not a tray of this printer; the printer\'s default tray is used';

describe.runIf(enabled)('a tray the printer lacks', () => {
  let printer: RunningIppEvePrinter;
  let loop: WholeLoop;

  beforeAll(async () => {
    printer = await startIppEvePrinter({ name: 'tray-test' });
    loop = await startWholeLoop({ printers: [{ name: PRINTER, uri: printer.uri }], level: 'info' });
  }, 60_000);

  /** `printrelay print` of the sample to the test printer, asking for `tray`. */
  const printWithTray = (tray: string) =>
    runCli(['print', sample, '--printer', PRINTER, '--tray', tray, '--url', loop.url, '--poll-ms', '50']);

  afterAll(async () => {
    await loop?.close();
    await printer?.stop();
  });

  it('is reported in the Status text and by printrelay print, and the job still prints', async () => {
    const result = await printWithTray('Tray 9');
    expect(result.stderr).toContain(`status 0 PRINTED|COMPLETE|${NOTE}| pages `);
    expect(result.code).toBe(0);
    const [, jobId, pages] = /^printed: job (\S+), (\d+) page\(s\)\n/.exec(result.stdout) ?? [];
    expect(result.stdout).toBe(`printed: job ${jobId}, ${pages} page(s)\n${NOTE}\n`);

    const app = await loop.app();
    try {
      const status = await app.sfapi.status(jobId as string);
      expect(status).toMatchObject({ jobstatus: 0, jobstatusstring: `PRINTED|COMPLETE|${NOTE}|` });
    } finally {
      await app.close();
    }
    // the agent log says the same, once, for the job
    expect(loop.logs().match(/"warning":"tray: \\"Tray 9\\" is not a tray of this printer/g)).toHaveLength(1);
  }, 60_000);

  it('a tray the printer has prints without a note', async () => {
    const result = await printWithTray('Main tray');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^printed: job \S+, \d+ page\(s\)\n$/);
    expect(result.stderr).toMatch(/^status 0 PRINTED\|COMPLETE\| pages /m);
  }, 60_000);
});
