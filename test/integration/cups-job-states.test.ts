/**
 * Status polls of several jobs at one printer in one Get-Jobs (ipp-job-states.ts), against a
 * real, private cupsd whose queue points at a real ippeveprinter: CUPS holds many jobs at once,
 * and a stopped queue keeps them pending. The IPP backend's requests are counted from its own
 * debug lines (`ipp request`, one per request sent).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../../src/lib/abort.js';
import { createLogger } from '../../src/log/logger.js';
import { IppBackend } from '../../src/printing/ipp/ipp-backend.js';
import { isFinalJobState } from '../../src/printing/printer-backend.js';
import { defaultTicket } from '../../src/protocol/print-ticket.js';
import { addEverywhereQueue, type PrivateCupsd, startCupsd } from '../support/cupsd.js';
import { type RunningIppEvePrinter, startIppEvePrinter } from '../support/ippeveprinter.js';
import { peersAvailable, which } from '../support/peers.js';
import { writePdf } from '../support/pdf.js';

const available = peersAvailable('cupsd', 'lpadmin', 'ippeveprinter', 'cupsenable', 'cupsdisable');
const QUEUE = 'Job_States';

/** The operations of the IPP requests the backend sent, in order. */
function requestLog(): { logger: ReturnType<typeof createLogger>; operations: string[] } {
  const operations: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) {
        if (!line) continue;
        const entry = JSON.parse(line) as { msg?: string; operation?: string };
        if (entry.msg === 'ipp request' && entry.operation) operations.push(entry.operation);
      }
      done();
    },
  });
  return { logger: createLogger({ level: 'debug', pretty: false, destination }), operations };
}

describe.runIf(available)('job states of several jobs at a CUPS queue', () => {
  let printer: RunningIppEvePrinter;
  let cupsd: PrivateCupsd;
  let document: string;
  let dir: string;

  beforeAll(async () => {
    printer = await startIppEvePrinter({ name: 'Job States Target' });
    cupsd = await startCupsd();
    addEverywhereQueue(cupsd, QUEUE, printer.uri);
    dir = mkdtempSync(join(tmpdir(), 'job-states-'));
    document = await writePdf(join(dir, 'one-page.pdf'), 1);
  });

  afterAll(async () => {
    await cupsd?.stop();
    await printer?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('asks for the jobs that poll at once with one Get-Jobs, and learns each end from its own Get-Job-Attributes', async () => {
    const { logger, operations } = requestLog();
    const backend = new IppBackend(`ipp://${cupsd.server}/printers/${QUEUE}`, { logger });
    try {
      await backend.describe();
      // A stopped queue keeps its jobs pending.
      execFileSync(which('cupsdisable') ?? 'cupsdisable', ['-h', cupsd.server, QUEUE]);
      const ids: string[] = [];
      for (let n = 0; n < 3; n++) {
        const job = { documentPath: document, documentFormat: 'application/pdf', userName: 'states' };
        ids.push(
          (await backend.submit({ ...job, jobName: `states-${n}`, ticket: defaultTicket })).printerJobId,
        );
      }
      operations.length = 0;
      const pending = await Promise.all(ids.map((id) => backend.jobState(id)));
      expect(pending.map((s) => s.state)).toEqual(['pending', 'pending', 'pending']);
      // The first poll went alone; the two that came while it was out shared one Get-Jobs.
      expect(operations).toEqual(['Get-Job-Attributes', 'Get-Jobs']);

      execFileSync(which('cupsenable') ?? 'cupsenable', ['-h', cupsd.server, QUEUE]);
      operations.length = 0;
      const final = new Map<string, string>();
      let calls = 0;
      for (let round = 0; round < 400 && final.size < ids.length; round++) {
        const waiting = ids.filter((id) => !final.has(id));
        calls += waiting.length;
        const states = await Promise.all(waiting.map((id) => backend.jobState(id)));
        states.forEach((s, i) => {
          if (isFinalJobState(s.state)) final.set(waiting[i] as string, s.state);
        });
        await sleep(25);
      }
      expect([...final.values()]).toEqual(['completed', 'completed', 'completed']);
      // Fewer requests than polls (each poll alone was one Get-Job-Attributes), and each job's
      // end from a Get-Job-Attributes of its own.
      expect(operations.length).toBeLessThan(calls);
      expect(operations.filter((op) => op === 'Get-Job-Attributes').length).toBeGreaterThanOrEqual(
        ids.length,
      );
    } finally {
      execFileSync(which('cupsenable') ?? 'cupsenable', ['-h', cupsd.server, QUEUE]);
      await backend.close();
    }
  });
});
