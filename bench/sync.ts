/**
 * Printer sync benchmark: N virtual IPP printers (N VirtualPrinters, each a real IPP server on
 * its own port, all in this process) are discovered and synced into the emulator by the agent's
 * PrinterSync over the real connector channel. Then a re-sync with nothing changed (goal: zero
 * write requests) and a re-sync after one printer reports a changed tray (goal: one PATCH of that
 * printer's properties carrying only the tray field and the trays capability). Write requests are
 * counted at the emulator, from its own request log; for the tray re-sync the line also names
 * what the agent sent (method, path, and the fields and capabilities its body carried).
 * Baseline, measured in the same run: N plain Get-Printer-Attributes calls to the same printers
 * with the same concurrency the sync uses (16).
 *
 *   npm run bench:sync                     (BENCH_PRINTERS=500)
 * Prints the time of each phase, the write requests by method and path kind, and last a line
 * `ratio <full sync time / baseline time>`.
 */
import { join } from 'node:path';
import type { SyncReport } from '../src/agent/printer-sync/printer-sync.js';
import { IppClient } from '../src/printing/ipp/ipp-client.js';
import { VirtualPrinter } from '../src/printing/virtual/virtual-printer.js';
import { silentLogger } from '../src/log/logger.js';
import type { ServedRequest } from '../test/support/emulator-requests.js';
import { type SentRequest, SettableDiscoverer, startSyncRig } from '../test/support/sync-rig.js';
import { registryWithTrayChange } from '../test/support/tray-fitted-backend.js';

const count = Number(process.env.BENCH_PRINTERS ?? 500);
const concurrency = 16;
const logger = silentLogger();

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const started = process.hrtime.bigint();
  const value = await run();
  return { value, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}

const withoutIds = (path: string): string => path.replace(/[0-9a-f-]{36}/g, '<id>');

function describeWrites(writes: ServedRequest[]): string {
  if (writes.length === 0) return 'none';
  const kinds = new Map<string, number>();
  for (const w of writes) {
    const kind = `${w.method} ${withoutIds(w.path)} ${w.status}`;
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  return [...kinds].map(([k, n]) => `${n} x ${k}`).join('; ');
}

/** What each request the agent sent carried: `PATCH <path> carrying properties [Trays], ...`. */
function describeSent(sent: SentRequest[]): string {
  if (sent.length === 0) return 'nothing';
  return sent
    .map((request) => {
      const body = request.body;
      const parts =
        typeof body === 'object' && body !== null
          ? Object.entries(body).map(([key, value]) =>
              typeof value === 'object' && value !== null && !Array.isArray(value)
                ? `${key} [${Object.keys(value).join(', ')}]`
                : key,
            )
          : [];
      const carrying = parts.length > 0 ? ` carrying ${parts.join(', ')}` : '';
      return `${request.method} ${withoutIds(request.path)}${carrying}`;
    })
    .join('; ');
}

async function baseline(uris: string[]): Promise<number> {
  let next = 0;
  const worker = async () => {
    while (next < uris.length) {
      const uri = uris[next++] as string;
      await new IppClient({ uri, logger }).getPrinterAttributes();
    }
  };
  const { seconds } = await timed(() => Promise.all(Array.from({ length: concurrency }, worker)));
  return seconds;
}

function line(label: string, seconds: number, report: SyncReport, writes: ServedRequest[]): void {
  const failed = report.failed.length > 0 ? `, ${report.failed.length} failed calls` : '';
  const phases = Object.entries(report.phasesMs)
    .map(([phase, ms]) => `${phase} ${ms} ms`)
    .join(', ');
  process.stdout.write(
    `${label.padEnd(22)} ${seconds.toFixed(3).padStart(8)} s   ${report.printers} printers, ${report.reachable} reachable${failed}; write requests: ${writes.length} (${describeWrites(writes)})\n${''.padEnd(36)}phases: ${phases}\n`,
  );
}

async function main(): Promise<void> {
  const rig = await startSyncRig('bench-sync-connector');
  const printers: VirtualPrinter[] = [];
  try {
    const uris: string[] = [];
    for (let i = 0; i < count; i++) {
      const name = `Bench ${String(i + 1).padStart(3, '0')}`;
      const printer = new VirtualPrinter({ name, outputDir: join(rig.dir, 'printed', String(i)), logger });
      printers.push(printer);
      uris.push((await printer.start()).uri);
    }
    const lan = new SettableDiscoverer('dnssd');
    lan.set(uris.map((uri, i) => ({ name: `Bench ${String(i + 1).padStart(3, '0')}`, uri })));
    const changedUri = uris[Math.floor(count / 2)] as string;
    const { registry, fitted } = registryWithTrayChange(changedUri);
    const sync = rig.makeSync({ discoverers: [lan], registry });
    process.stdout.write(`printer sync benchmark: ${count} virtual IPP printers, emulator at ${rig.url}\n`);

    await baseline(uris.slice(0, concurrency * 4)); // warm-up, not timed
    const gpaSeconds = await baseline(uris);
    rig.counter.reset();
    const full = await timed(() => sync.runNow(undefined, true));
    line('full sync', full.seconds, full.value, rig.counter.writes());

    rig.counter.reset();
    const same = await timed(() => sync.runNow(undefined, true));
    line('re-sync, no change', same.seconds, same.value, rig.counter.writes());

    for (const backend of fitted()) backend.changed = true;
    rig.counter.reset();
    rig.sent.reset();
    const tray = await timed(() => sync.runNow(undefined, true));
    line('re-sync, one tray', tray.seconds, tray.value, rig.counter.writes());
    process.stdout.write(`${''.padEnd(36)}sent: ${describeSent(rig.sent.writes())}\n`);

    process.stdout.write(
      `${`${count} x Get-Printer-Attributes`.padEnd(22)} ${gpaSeconds.toFixed(3).padStart(8)} s   (plain IppClient calls, ${concurrency} at a time)\n`,
    );
    process.stdout.write(`ratio ${(full.seconds / gpaSeconds).toFixed(2)}\n`);
  } finally {
    for (const printer of printers) await printer.stop();
    await rig.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
