/**
 * The large-document part of bench:e2e: one document of BENCH_BIG_MB MiB through the whole path
 * (app -> emulator -> agent -> printer), with the peak RSS growth of agent and emulator, against
 * the same file sent straight to the same printer by ipptool (on the agent's core when pinned).
 */
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { SfapiClient } from '../../src/client/sfapi-client.js';
import { printAndWait } from '../../test/support/whole-loop.js';
import { runIpptoolBatch, writeBatchTest } from './ipptool-baseline.js';
import { newestJobDocument } from './printer-documents.js';
import { largeFloor } from './large-floor.js';
import { mb, memoryOf, resetPeak, samplePages } from './processes.js';

/** A PDF of about `megabytes` MiB: a one-page PDF followed by padding after %%EOF, written in chunks. */
export function writeLargeDocument(path: string, onePage: Buffer, megabytes: number): void {
  const fd = openSync(path, 'w');
  writeSync(fd, onePage);
  const chunk = Buffer.alloc(4 * 1024 * 1024, 0x20);
  for (let written = 0; written < megabytes * 1024 * 1024; written += chunk.length) writeSync(fd, chunk);
  closeSync(fd);
}

export interface LargeRun {
  work: string;
  megabytes: number;
  onePage: string;
  sfapi: SfapiClient;
  printerId: string;
  printerUri: string;
  /** Where the printer keeps what it prints (ippeveprinter -k): the agent's copy is compared with `cmp`. */
  printerSpoolDir: string;
  agentPid: number;
  emulatorPid: number;
  /** ipptool's core in the direct run (the agent's core when pinned). */
  core?: number;
}

const rate = (bytes: number, seconds: number) => bytes / 1024 / 1024 / seconds;

/** Runs both and prints them; resolves ours/direct of the rates. */
export async function largeDocumentRun(run: LargeRun): Promise<number> {
  const big = join(run.work, 'big.pdf');
  writeLargeDocument(big, readFileSync(run.onePage), run.megabytes);
  try {
    const size = statSync(big).size;
    const direct = await runIpptoolBatch(
      run.printerUri,
      writeBatchTest(run.work, 1, big, 'application/pdf'),
      1,
      run.core,
    );
    const before = { agent: memoryOf(run.agentPid).rss, emulator: memoryOf(run.emulatorPid).rss };
    const reset = resetPeak(run.agentPid) && resetPeak(run.emulatorPid);
    const sampler = samplePages(run.agentPid);
    const t0 = performance.now();
    const { status } = await printAndWait(
      run.sfapi,
      big,
      { type: 'pdf', printerid: run.printerId, alias: 'big.pdf' },
      1_800_000,
    );
    const seconds = (performance.now() - t0) / 1000;
    const agentPages = sampler.stop();
    if (status.jobstatus !== 0) throw new Error(`the large job ended with ${status.jobstatus}`);
    const kept = sameAtPrinter(run.printerSpoolDir, big);
    const after = { agent: memoryOf(run.agentPid).peak, emulator: memoryOf(run.emulatorPid).peak };
    const ours = rate(size, seconds);
    const directRate = rate(size, direct.seconds);
    console.log(
      `large   ${mb(size)} through the whole path in ${seconds.toFixed(1)} s (${ours.toFixed(0)} MB/s); direct ipptool ${direct.seconds.toFixed(1)} s (${directRate.toFixed(0)} MB/s, ipptool CPU ${direct.cpuSeconds.toFixed(2)} s)`,
    );
    console.log(
      `large   peak RSS growth${reset ? '' : ' (peak not resettable: lifetime peak)'}: agent ${mb(after.agent - before.agent)} (peak ${mb(after.agent)}), emulator ${mb(after.emulator - before.emulator)} (peak ${mb(after.emulator)}); agent peak private ${mb(agentPages.private)}, peak PSS ${mb(agentPages.pss)}`,
    );
    console.log(`large   bytes at the printer: ${kept} is the document (cmp)`);
    const floor = await largeFloor(run.work, big, run.printerUri, run.core);
    const legRate = (leg: { seconds: number; cpuSeconds: number }) =>
      `${leg.seconds.toFixed(1)} s (${rate(size, leg.seconds).toFixed(0)} MB/s, CPU ${leg.cpuSeconds.toFixed(2)} s)`;
    console.log(
      `large   floor, bare node${run.core === undefined ? '' : ` on core ${run.core}`}: IPP send ${legRate(floor.send)}; one hop (HTTP + SHA-256 + file) ${legRate(floor.hop)}; hop + send ${floor.sequential.toFixed(1)} s = large_ratio ceiling ${(direct.seconds / floor.sequential).toFixed(3)}`,
    );
    console.log(
      `large   floor of the upload leg, bare node + busboy: ${legRate(floor.upload)}; upload + hop + send ${floor.whole.toFixed(1)} s (${rate(size, floor.whole).toFixed(0)} MB/s) = large_ratio ceiling ${(direct.seconds / floor.whole).toFixed(3)}; the three overlapped >= ${floor.overlapped.toFixed(1)} s (${rate(size, floor.overlapped).toFixed(0)} MB/s) = ceiling ${(direct.seconds / floor.overlapped).toFixed(3)}`,
    );
    return ours / directRate;
  } finally {
    rmSync(big, { force: true });
  }
}

/**
 * The document of the printer's newest job (the agent's large job is the last one it printed,
 * after the direct run), compared with the document by `cmp`; throws unless it is the same, byte
 * for byte and in length. Its name.
 */
function sameAtPrinter(spoolDir: string, document: string): string {
  const kept = newestJobDocument(spoolDir);
  const cmp = spawnSync('cmp', [document, join(spoolDir, kept)], { encoding: 'utf8' });
  if (cmp.status !== 0)
    throw new Error(`the printer's ${kept} is not the document: ${cmp.stdout}${cmp.stderr}`);
  return kept;
}
