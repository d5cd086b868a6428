/**
 * IPP requests per job at a printer that holds several of the agent's jobs at once: a private
 * cupsd whose queue points at a fast ippeveprinter (test/support helpers, stopped at the end).
 * The agent's IppBackend submits `BENCH_JOBS` one-page jobs one after another (Create-Job +
 * Send-Document from memory, as the job loop does) and watches each from its submission on the
 * watch step's schedule (5 ms doubling up to 500 ms) until it ends, all jobs watched at once. The
 * requests are counted from the client's own `ipp request` debug lines, by operation. Prints the
 * requests per job, the load average and the CPU of this process per job (which includes the
 * bench's own work; compare the request counts, the CPU only within one run).
 *
 *   npx tsx bench/queue-polls.ts    (BENCH_JOBS=30)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { sleep } from '../src/lib/abort.js';
import { createLogger } from '../src/log/logger.js';
import { IppBackend } from '../src/printing/ipp/ipp-backend.js';
import { isFinalJobState } from '../src/printing/printer-backend.js';
import { defaultTicket } from '../src/protocol/print-ticket.js';
import { addEverywhereQueue, startCupsd } from '../test/support/cupsd.js';
import { startIppEvePrinter } from '../test/support/ippeveprinter.js';
import { writePdf } from '../test/support/pdf.js';

const jobs = Number(process.env.BENCH_JOBS ?? 30);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

const operations = new Map<string, number>();
const destination = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString().split('\n')) {
      if (!line.includes('"ipp request"')) continue;
      const { operation } = JSON.parse(line) as { operation: string };
      operations.set(operation, (operations.get(operation) ?? 0) + 1);
    }
    done();
  },
});

const dir = mkdtempSync(join(tmpdir(), 'queue-polls-'));
const printer = await startIppEvePrinter({ name: 'Queue Polls Target' });
const cupsd = await startCupsd();
try {
  addEverywhereQueue(cupsd, 'Queue_Polls', printer.uri);
  const documentPath = await writePdf(join(dir, 'one-page.pdf'), 1);
  const documentBytes = readFileSync(documentPath);
  const logger = createLogger({ level: 'debug', pretty: false, destination });
  const backend = new IppBackend(`ipp://${cupsd.server}/printers/Queue_Polls`, { logger });
  await backend.describe();
  operations.clear();
  console.log(`load    average ${load()} at the start`);
  const cpu0 = process.cpuUsage();

  /** Watches one job on the watch step's schedule until it ends; throws unless it completed. */
  const watch = async (printerJobId: string) => {
    for (let poll = 0; ; poll++) {
      await sleep(Math.min(500, 5 * 2 ** poll));
      const state = await backend.jobState(printerJobId);
      if (state.state === 'completed') return;
      if (isFinalJobState(state.state)) throw new Error(`job ${printerJobId} ended ${state.state}`);
    }
  };
  const watches: Promise<void>[] = [];
  for (let n = 0; n < jobs; n++) {
    const submitted = await backend.submit({
      documentPath,
      documentBytes,
      documentFormat: 'application/pdf',
      jobName: `queue-polls-${n}`,
      userName: 'bench',
      ticket: defaultTicket,
    });
    watches.push(watch(submitted.printerJobId));
  }
  await Promise.all(watches);
  const cpu = process.cpuUsage(cpu0);
  await backend.close();
  const total = [...operations.values()].reduce((a, b) => a + b, 0);
  const each = [...operations]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([op, n]) => `${op} ${(n / jobs).toFixed(2)}`)
    .join(', ');
  console.log(`requests per job ${(total / jobs).toFixed(2)} (${each}) for ${jobs} jobs`);
  console.log(`cpu     ${((cpu.user + cpu.system) / 1000 / jobs || 0).toFixed(2)} ms/job (this process)`);
  console.log(`load    average ${load()} at the end`);
} finally {
  await cupsd.stop();
  await printer.stop();
  rmSync(dir, { recursive: true, force: true });
}
