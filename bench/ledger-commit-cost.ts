/**
 * What one ledger commit costs the agent: the agent's own JobLedger and Outbox (src/store/)
 * driven through the store calls a job with an inline document makes on the job path
 * (src/agent/jobs: the offer with its `received` and `downloading` events, the `submitting`
 * attempt, the flush with the printer job, `submitted` with `printing`, `completed` with its
 * event, and the outbox sender's batch read and answer every BATCH_JOBS jobs), against a WAL
 * file database opened by openAgentDatabase (the agent's pragmas). The baseline, in the same
 * run: bench:floor's bare ledger (bench/support/bare-ledger.ts) making its commits for the same
 * jobs. Then each suspected cause alone, as a variant of the agent's line:
 *
 *   tx-per-call   db.transaction(work) built on every transaction, as the store did before
 *                 src/store/transaction-runner.ts (which builds one and hands it the work)
 *   no-reuse      statements compiled on every prepare (reuseStatements undone)
 *   no-autockpt   wal_autocheckpoint = 0 (no checkpoint during the run)
 *   no-indexes    the secondary indexes jobs_state, jobs_arrival and outbox_kind_head dropped
 *   dup-index     outbox_record put back (the same columns as the UNIQUE (job_id, seq) constraint's
 *                 index; schema version 7 dropped it)
 *   small-offer   an offer of short strings (offer_json 4 x smaller) for the JSON columns
 *
 *   npx tsx bench/ledger-commit-cost.ts   (BENCH_JOBS=2000, BENCH_ROUNDS=5)
 *
 * Per line: CPU µs per job (process.cpuUsage, user + system, median of the rounds, the lines
 * interleaved per round), the ratio to the bare line, and the WAL's growth per job in pages
 * (frames) measured with the checkpoint off, from the WAL file's size.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultBackoff } from '../src/lib/backoff.js';
import { openSqlite } from '../src/lib/sqlite.js';
import type { JobOffer } from '../src/protocol/connector-channel.js';
import { type AgentDatabase, openAgentDatabase } from '../src/store/agent-db.js';
import { JobLedger } from '../src/store/job-ledger.js';
import { Outbox } from '../src/store/outbox.js';
import { openLedger } from './support/bare-ledger.js';

const JOBS = Number(process.env.BENCH_JOBS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** bench:floor measured 0.44-0.48 event batches per job: one batch answer every two jobs. */
const BATCH_JOBS = 2;
const clock = { now: () => Date.now() };

type Variant =
  | 'agent'
  | 'tx-per-call'
  | 'no-reuse'
  | 'no-autockpt'
  | 'no-indexes'
  | 'dup-index'
  | 'small-offer';
const VARIANTS: Variant[] = [
  'agent',
  'tx-per-call',
  'no-reuse',
  'no-autockpt',
  'no-indexes',
  'dup-index',
  'small-offer',
];

function offerOf(jobId: string, small: boolean): JobOffer {
  const text = (s: string) => (small ? s.slice(0, 1) : s);
  return {
    job_id: jobId,
    printer_id: small ? 'p' : 'prn_0f3c9a1e5b7d4c2a8e6f1b3d5a7c9e0f',
    tp_id: 1,
    document: {
      url: text(`/connector/v1/jobs/${jobId}/document?sig=0123456789abcdef0123456789abcdef`),
      size: 1234,
      sha256: text('9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'),
      extension: 'pdf',
      content_type: 'application/pdf',
      name: text('quarterly-report-final.pdf'),
    },
    ticket: small ? { copies: 1 } : { copies: 1, color: false, duplex: 'long-edge', collate: true },
    user: small
      ? { id: 'u', email: 'e', name: 'n' }
      : { id: 'usr_7b1e3d5f9a', email: 'alice.example@example.com', name: 'Alice Example' },
    created: new Date(0).toISOString(),
  } as JobOffer;
}

/** The agent's store calls for JOBS jobs; the database is prepared per variant. */
function runAgent(db: AgentDatabase, variant: Variant, tag: string): void {
  const ledger = new JobLedger(db, clock);
  const outbox = new Outbox(db, clock, defaultBackoff);
  for (let i = 0; i < JOBS; i++) {
    const jobId = `${tag}-${i}`;
    const offer = offerOf(jobId, variant === 'small-offer');
    // job-loop offer(): the check, then the job and its events in one commit.
    if (ledger.get(jobId)) throw new Error('job there already');
    ledger.atomically(() => {
      ledger.add(offer, 'spooled');
      outbox.add(jobId, { kind: 'received' });
      outbox.add(jobId, { kind: 'downloading' });
    });
    // submit-step: the runner's read, the attempt, the flush with the printer job.
    ledger.get(jobId);
    ledger.move(jobId, 'submitting', { attempt: true });
    ledger.markDocumentFlushed(jobId, String(i + 1));
    // job-outcomes submittedAs(), then watch-step's completion: a move and its event each.
    ledger.atomically(() => {
      ledger.move(jobId, 'submitted', { printerJobId: String(i + 1), documentSent: true });
      outbox.add(jobId, { kind: 'printing', printer_job_id: String(i + 1) });
    });
    ledger.get(jobId);
    ledger.atomically(() => {
      ledger.move(jobId, 'completed', {});
      outbox.add(jobId, { kind: 'completed', pages_printed: 1 });
    });
    // outbox-sender: the batch read and its answer (one commit).
    if ((i + 1) % BATCH_JOBS === 0) {
      for (const batch of outbox.dueBatches(1))
        outbox.settleBatch({ delivered: batch.map((e) => e.id), failed: [], discardJobs: [] });
    }
  }
}

/** bench:floor's bare ledger for the same jobs: its five commits and the batch answers. */
function runBare(db: AgentDatabase, tag: string): void {
  const ledger = openLedger(db);
  let pending: number[] = [];
  for (let i = 0; i < JOBS; i++) {
    const jobId = `${tag}-${i}`;
    const event = (seq: number, kind: string) => JSON.stringify({ event_id: jobId, seq, kind, at: '' });
    pending.push(ledger.claimed(jobId, JSON.stringify(offerOf(jobId, false)), event(1, 'received')) ?? 0);
    ledger.submitting(jobId);
    ledger.flushed(jobId, i + 1);
    pending.push(ledger.submitted(jobId, event(2, 'printing')));
    pending.push(ledger.ended(jobId, 'completed', event(3, 'completed')));
    if ((i + 1) % BATCH_JOBS === 0) {
      ledger.acknowledge(pending);
      pending = [];
    }
  }
}

function openVariant(path: string, variant: Variant): AgentDatabase {
  const db = openAgentDatabase(path);
  if (variant === 'tx-per-call') {
    // The store's runner is built from db.transaction once: each of its calls now builds anew.
    const build = db.transaction.bind(db);
    db.transaction = ((work: (...args: unknown[]) => unknown) =>
      (...args: unknown[]) =>
        build(work)(...args)) as unknown as typeof db.transaction;
  }
  // reuseStatements set an own `prepare`; without it the prototype's compiles every time.
  if (variant === 'no-reuse') delete (db as { prepare?: unknown }).prepare;
  if (variant === 'no-autockpt') db.pragma('wal_autocheckpoint = 0');
  if (variant === 'dup-index') db.exec('CREATE INDEX outbox_record ON outbox(job_id, seq);');
  if (variant === 'no-indexes')
    db.exec('DROP INDEX jobs_state; DROP INDEX jobs_arrival; DROP INDEX outbox_kind_head;');
  return db;
}

/** CPU µs per job of one line in a fresh database. */
function measure(dir: string, line: Variant | 'bare', round: number): number {
  const path = join(dir, `${line}-${round}.db`);
  const tag = `${line}-${round}`;
  const db = line === 'bare' ? openSqlite(path) : openVariant(path, line);
  const start = process.cpuUsage();
  if (line === 'bare') runBare(db, tag);
  else runAgent(db, line, tag);
  const used = process.cpuUsage(start);
  db.close();
  return (used.user + used.system) / JOBS;
}

/** WAL frames (pages) written per job with the checkpoint off (a frame: a page and its 24-byte header). */
function walPagesPerJob(dir: string, line: Variant | 'bare'): number {
  const path = join(dir, `wal-${line}.db`);
  const walSize = () => statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
  const db = line === 'bare' ? openSqlite(path) : openVariant(path, line);
  db.pragma('wal_autocheckpoint = 0');
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  if (line === 'bare') openLedger(db); // its schema, before the WAL starts empty
  db.pragma('wal_checkpoint(TRUNCATE)');
  const before = walSize();
  if (line === 'bare') runBare(db, 'wal');
  else runAgent(db, line, 'wal');
  const pages = (walSize() - before) / (pageSize + 24) / JOBS;
  db.close();
  return pages;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

const dir = mkdtempSync(join(tmpdir(), 'ledger-commit-cost-'));
try {
  const lines: (Variant | 'bare')[] = ['bare', ...VARIANTS];
  for (const line of lines) measure(dir, line, -1); // warm-up
  const samples = new Map<string, number[]>(lines.map((l) => [l, []]));
  for (let round = 0; round < ROUNDS; round++)
    for (const line of round % 2 === 0 ? lines : [...lines].reverse())
      samples.get(line)?.push(measure(dir, line, round));
  const bare = median(samples.get('bare') ?? []);
  const agent = median(samples.get('agent') ?? []);
  console.log(`jobs ${JOBS} x rounds ${ROUNDS}, batch answer every ${BATCH_JOBS} jobs`);
  console.log('line          µs/job  x bare  vs agent  WAL pages/job');
  for (const line of lines) {
    const us = median(samples.get(line) ?? []);
    const pages = walPagesPerJob(dir, line);
    console.log(
      `${line.padEnd(12)} ${us.toFixed(0).padStart(7)} ${(us / bare).toFixed(2).padStart(7)} ${(us / agent)
        .toFixed(2)
        .padStart(9)} ${pages.toFixed(2).padStart(14)}`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
