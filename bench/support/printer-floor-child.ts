/**
 * The printer half of bench:floor's loop alone: the agent's IppBackend sending the same one-page
 * document `jobs` times as the loop does (Create-Job + Send-Document from memory, then
 * Get-Job-Attributes on the agent's poll schedule until the job ends, one job at a time), with
 * the default ticket, no cloud and nothing written. The loop's CPU per job minus this one is what
 * the cloud's side of a job (offer, download, events) costs it. A node process with the agent's
 * flags, pinned like the agent.
 *
 *   printer-floor-child.ts <printer uri> <document> <jobs> <warm-up jobs>
 * Prints one JSON line: the wall seconds and this process's CPU seconds for the jobs.
 */
import { readFileSync } from 'node:fs';
import { sleep } from '../../src/lib/abort.js';
import { silentLogger } from '../../src/log/logger.js';
import { IppBackend } from '../../src/printing/ipp/ipp-backend.js';
import { isFinalJobState } from '../../src/printing/printer-backend.js';
import { defaultTicket } from '../../src/protocol/print-ticket.js';

/** The agent's default `jobs.status_poll_ms`: the longest pause between two polls. */
const STATUS_POLL_MS = 500;

const [uri, documentPath, count, warmup] = process.argv.slice(2);
if (!uri || !documentPath || !count || !warmup)
  throw new Error('usage: printer-floor-child <printer uri> <document> <jobs> <warm-up jobs>');
const jobs = Number(count);
const documentBytes = readFileSync(documentPath);
const backend = new IppBackend(uri, { logger: silentLogger() });
await backend.describe();

/** One job: submitted, then watched until it ends; anything but completed throws. */
async function printOnce(n: number): Promise<void> {
  const submitted = await backend.submit({
    documentPath: '',
    documentBytes,
    documentFormat: 'application/pdf',
    jobName: `floor-${n}`,
    userName: 'bench',
    ticket: defaultTicket,
  });
  const notFinished = submitted.state !== undefined && !isFinalJobState(submitted.state);
  for (let poll = notFinished ? 1 : 0; ; poll++) {
    if (poll > 0) await sleep(Math.min(STATUS_POLL_MS, 5 * 2 ** (poll - 1)));
    const state = await backend.jobState(submitted.printerJobId);
    if (state.state === 'completed') return;
    if (isFinalJobState(state.state)) throw new Error(`job ${n} ended ${state.state}`);
  }
}

for (let i = 0; i < Number(warmup); i++) await printOnce(i);
const cpu0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < jobs; i++) await printOnce(i);
const cpu = process.cpuUsage(cpu0);
await backend.close();
console.log(
  JSON.stringify({ seconds: (performance.now() - t0) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6 }),
);
