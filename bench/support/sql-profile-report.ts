/**
 * bench:floor's statement profile of the agent (BENCH_SQL_PROFILE=1): the agent runs with
 * PRINTRELAY_SQL_PROFILE=<file> (src/cli/sql-profile-dump.ts), the bench asks it for a dump
 * (SIGUSR2) before and after the measured jobs and prints the interval per job: every SQL
 * statement's runs and time, the transactions' own time (BEGIN, COMMIT and the work's code
 * between its statements) and the WAL pages written (the profiled agent does not checkpoint).
 */
import { existsSync, readFileSync } from 'node:fs';
import { sleep } from '../../src/lib/abort.js';
import { profileInterval } from '../../src/lib/sqlite-profile.js';
import type { ProfileDump } from '../../src/cli/sql-profile-dump.js';

/** A WAL frame: a page of 4,096 bytes and its 24-byte header. */
const FRAME_BYTES = 4096 + 24;

/** Asks the agent `pid` for its `taken`th dump and waits for it in `file` (10 s at most). */
export async function takeDump(pid: number, file: string, taken: number): Promise<ProfileDump> {
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (existsSync(file)) {
      const dump = JSON.parse(readFileSync(file, 'utf8')) as ProfileDump;
      if (dump.taken >= taken) return dump;
    }
    if (Date.now() > deadline) throw new Error(`no statement profile dump ${taken} in ${file} after 10 s`);
    await sleep(20);
  }
}

/** Prints the interval between two dumps per job: `top` statements by CPU, then the totals. */
export function printProfile(before: ProfileDump, after: ProfileDump, jobs: number, top = 25): void {
  const interval = profileInterval(before, after);
  const perJob = (n: number) => (n / jobs).toFixed(2).padStart(7);
  const statements = interval.statements.sort((a, b) => b.cpuMicros - a.cpuMicros);
  const sum = (pick: (s: (typeof statements)[number]) => number) =>
    statements.reduce((n, s) => n + pick(s), 0);
  console.log('sql     runs/job  CPU µs/job  wall µs/job  in-tx  statement  <- callers (sampled)');
  for (const s of statements.slice(0, top)) {
    const sql = s.sql.replace(/\s+/g, ' ').trim().slice(0, 110);
    const share = `${Math.round((100 * s.inTransaction) / s.runs)}%`.padStart(5);
    console.log(
      `sql     ${perJob(s.runs)}     ${perJob(s.cpuMicros)}      ${perJob(s.micros)}  ${share}  ${sql}`,
    );
    for (const caller of s.callers.slice(0, 4)) console.log(`sql                <- ${caller}`);
  }
  const t = interval.transactions;
  console.log(
    `sql     statements: ${perJob(sum((s) => s.runs))} runs/job, CPU ${perJob(sum((s) => s.cpuMicros))} µs/job, wall ${perJob(sum((s) => s.micros))} µs/job (${statements.length} distinct)`,
  );
  const own = (all: number, begin: number, commit: number, statements: number) =>
    perJob(all - begin - commit - statements);
  console.log(
    `sql     transactions: ${perJob(t.count)} per job; CPU µs/job ${perJob(t.cpuMicros)} in all: BEGIN ${perJob(t.beginCpuMicros)}, COMMIT ${perJob(t.commitCpuMicros)}, statements ${perJob(t.statementCpuMicros)}, the work's code between them ${own(t.cpuMicros, t.beginCpuMicros, t.commitCpuMicros, t.statementCpuMicros)}`,
  );
  console.log(
    `sql     transactions, wall µs/job ${perJob(t.micros)} in all: BEGIN ${perJob(t.beginMicros)}, COMMIT ${perJob(t.commitMicros)}, statements ${perJob(t.statementMicros)}, the work's code ${own(t.micros, t.beginMicros, t.commitMicros, t.statementMicros)}`,
  );
  const outside = (pick: 'cpuMicros' | 'micros', inside: number) => sum((s) => s[pick]) - inside;
  console.log(
    `sql     store total (statements outside transactions + transactions): CPU ${perJob(outside('cpuMicros', t.statementCpuMicros) + t.cpuMicros)}, wall ${perJob(outside('micros', t.statementMicros) + t.micros)} µs/job; WAL ${perJob((after.walBytes - before.walBytes) / FRAME_BYTES)} pages/job`,
  );
}
