/**
 * `printrelay card copies --data-dir DIR [--card NUMBER] [--limit N]`: the copy jobs the
 * agent recorded at its release stations, newest first, from the agent database (read while
 * the agent runs: SQLite WAL). One line each: start time, station, card (masked), pages, colour
 * pages, final state, and how far the cloud has it (queued, Pending, single request, continued).
 * `--json` prints the same records as a JSON array (copyJobsJson). `formatCopyJobs` is pure. The database is closed before the command returns.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { maskCardNumber } from '../../log/redaction.js';
import { openAgentDatabase } from '../../store/agent-db.js';
import { type LocalJobRecord, LocalJobStore } from '../../store/local-job-store.js';
import { Outbox } from '../../store/outbox.js';
import { systemClock } from '../../lib/clock.js';
import { defaultBackoff } from '../../lib/backoff.js';
import { CliError } from '../cli-runtime.js';

/** Flags of `card copies`. */
export interface CopiesFlags {
  dataDir: string;
  card?: string;
  limit: string;
  json?: boolean;
}

/**
 * The --json document of `card copies`: one object per record, newest first, the card masked
 * as in the table, times as ISO strings. Pure.
 */
export function copyJobsJson(records: readonly LocalJobRecord[]): string {
  const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
  const rows = records.map((r) => ({
    startedAt: iso(r.startedAt),
    endedAt: iso(r.endedAt),
    station: r.station,
    printer: r.printer,
    card: maskCardNumber(r.userId),
    source: r.source,
    pages: r.fields.TotalPrintedPages ?? 0,
    colourPages: r.fields.TotalPrintedColorPages ?? null,
    state: r.status,
    cloud: r.cloudJobId
      ? {
          state: 'sent',
          jobId: r.cloudJobId,
          tracking: r.tracking ?? null,
          status: r.deliveredStatus ?? 'Pending',
        }
      : { state: 'queued' },
  }));
  return `${JSON.stringify(rows, null, 2)}\n`;
}

/** Where the cloud has the record, in words. */
function delivery(record: LocalJobRecord): string {
  if (!record.cloudJobId) return 'queued';
  const state = record.deliveredStatus ?? 'Pending';
  const how =
    record.tracking === 'single'
      ? 'single request'
      : record.tracking === 'continued'
        ? 'continued'
        : 'tracked';
  return `sent (${how}, ${state})`;
}

/** The table of `card copies`, one line per record after a header. */
export function formatCopyJobs(records: readonly LocalJobRecord[]): string[] {
  if (records.length === 0) return ['no copy jobs recorded'];
  const rows = records.map((r) => [
    new Date(r.startedAt).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    r.station,
    maskCardNumber(r.userId),
    String(r.fields.TotalPrintedPages ?? 0),
    r.fields.TotalPrintedColorPages === undefined ? '-' : String(r.fields.TotalPrintedColorPages),
    r.status,
    delivery(r),
  ]);
  const all = [['started', 'station', 'card', 'pages', 'colour', 'state', 'cloud'], ...rows];
  const widths = all[0]!.map((_, i) => Math.max(...all.map((row) => row[i]!.length)));
  return all.map((row) =>
    row
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
}

/** Runs `card copies`. */
export function runCardCopies(flags: CopiesFlags): void {
  const limit = Number(flags.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
    throw new CliError('--limit: must be an integer from 1 to 10000');
  const path = join(flags.dataDir, 'agent.db');
  if (!existsSync(path))
    throw new CliError(`${path}: no agent database here (--data-dir is the agent's data directory)`);
  const db = openAgentDatabase(path);
  try {
    const store = new LocalJobStore(db, new Outbox(db, systemClock, defaultBackoff), systemClock);
    const records = store.recent({ limit, ...(flags.card ? { userId: flags.card } : {}) });
    process.stdout.write(flags.json ? copyJobsJson(records) : `${formatCopyJobs(records).join('\n')}\n`);
  } finally {
    db.close();
  }
}
