/**
 * The switchboard's job rules with the real loop: the emulator, the agent and an ippeveprinter.
 * The agent prints and reports the job printed; an `end_job` rule scoped to the printer makes
 * the emulator record it failed with 3011 (Status shows it, the message names the rule); once
 * used up, jobs end as reported again. (Fewer pages: emulator-faults.test.ts, as this printer
 * reports no page counts.)
 */
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningIppEvePrinter, startIppEvePrinter } from '../support/ippeveprinter.js';
import { peersAvailable } from '../support/peers.js';
import { printAndWait, startWholeLoop, type WholeLoop, waitForEnd } from '../support/whole-loop.js';

const enabled = peersAvailable('ippeveprinter');
const PRINTER = 'Fault Test Printer';
const sample = join(import.meta.dirname, '..', '..', 'docs', 'sample.pdf');

async function addFault(base: string, rule: unknown): Promise<{ id: string }> {
  const res = await request(`${base}/_emulator/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(rule),
  });
  const body = (await res.body.json()) as { id: string }[];
  if (res.statusCode !== 201) throw new Error(`fault rule refused: ${JSON.stringify(body)}`);
  return body[0]!;
}

describe.runIf(enabled)('job fault rules with the real agent and printer', () => {
  let printer: RunningIppEvePrinter;
  let loop: WholeLoop;

  beforeAll(async () => {
    printer = await startIppEvePrinter({ name: 'fault-test' });
    loop = await startWholeLoop({ printers: [{ name: PRINTER, uri: printer.uri }], level: 'info' });
  }, 60_000);
  afterAll(async () => {
    await loop?.close();
    await printer?.stop();
  });

  it('ends a printed job with 3011 once, then as reported', async () => {
    const app = await loop.app();
    try {
      const printerId = (await app.sfapi.getPrinters()).find((p) => p.name === PRINTER)!.id;
      const failing = await addFault(loop.url, {
        printer: printerId,
        end_job: { error_code: 3011 },
        times: 1,
      });
      const first = await printAndWait(app.sfapi, sample, {
        type: 'pdf',
        printerid: printerId,
        alias: 'a.pdf',
      });
      expect(first.status.jobstatus).toBe(3011);
      const record = loop.emulator.app.emulator.store.jobs.findById(first.jobId);
      expect([record?.state, record?.message]).toEqual(['failed', `fault rule ${failing.id}`]);

      const third = await printAndWait(app.sfapi, sample, {
        type: 'pdf',
        printerid: printerId,
        alias: 'c.pdf',
      });
      expect(third.status.jobstatus).toBe(0);
      expect(third.status.jobstatusstring).toBe('PRINTED|COMPLETE|');
    } finally {
      await app.close();
    }
  }, 90_000);

  it("holds a jammed printer's new job back, shows why in Status, and prints it once the rule is removed", async () => {
    const app = await loop.app();
    try {
      const printerId = (await app.sfapi.getPrinters()).find((p) => p.name === PRINTER)!.id;
      const jam = await addFault(loop.url, { printer: printerId, printer_state: 'jammed' });
      const { fileid, sasUri } = await app.sfapi.prepareUpload();
      await app.sfapi.upload(sasUri, sample, () => {});
      const { jobid } = await app.sfapi.print({
        fileid,
        type: 'pdf',
        printerid: printerId,
        alias: 'jam.pdf',
      });
      const waiting = await app.sfapi.status(jobid);
      expect(waiting.jobstatus).toBe(1246);
      expect(waiting.jobstatusstring).toBe(`WAITING|printer jammed (fault rule ${jam.id})|`);
      expect(loop.emulator.app.emulator.store.jobs.findById(jobid)?.state).toBe('pending');

      const removed = await request(`${loop.url}/_emulator/faults/${jam.id}`, { method: 'DELETE' });
      expect(removed.statusCode).toBe(204);
      const done = await waitForEnd(app.sfapi, jobid);
      expect([done.jobstatus, done.jobstatusstring]).toEqual([0, 'PRINTED|COMPLETE|']);
    } finally {
      await app.close();
    }
  }, 90_000);
});
