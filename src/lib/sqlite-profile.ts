/**
 * A statement profile of one SQLite database (lib/sqlite.ts), for measuring where a running
 * process spends its database time (docs/performance.md, "Round 6: the store in the running
 * agent"). Off unless attached: a database opened without one runs its statements unwrapped.
 * Attached before `reuseStatements`, it wraps every statement `prepare` compiles, so each run,
 * get, all and iterate is counted and timed by SQL text, and every outermost transaction
 * function call (BEGIN, the work, COMMIT) is timed as well, each in wall time and in the
 * process's CPU time (two clock reads and two getrusage calls per run: a measuring mode only). Every `sampleEvery`th run of a
 * statement records its callers (a short stack) to name who runs it. The figures are cumulative:
 * two snapshots, subtracted, give an interval's.
 */
import type { SqliteDatabase, SqliteStatement } from './sqlite.js';

/** One SQL text's runs as a snapshot holds them. */
export interface StatementFigures {
  sql: string;
  /** Calls of run, get, all or iterate. */
  runs: number;
  /** Of those, runs inside a transaction function (their commit is the transaction's). */
  inTransaction: number;
  /** Wall time spent in the calls, in microseconds (inflated when the process waits for a core). */
  micros: number;
  /** The process's CPU time during the calls, in microseconds (process.cpuUsage: all its threads). */
  cpuMicros: number;
  /** Distinct callers seen in the sampled runs: up to three frames outside this module. */
  callers: string[];
}

/** A profile's cumulative figures at one moment. */
export interface ProfileSnapshot {
  statements: StatementFigures[];
  /** Outermost transaction function calls: how many, their whole time, their statements' time. */
  transactions: TransactionFigures;
}

/**
 * Outermost transaction function calls: how many, their time in all, the time of BEGIN and of
 * COMMIT (the calls before and after the work), and their statements' time.
 */
export interface TransactionFigures {
  count: number;
  micros: number;
  cpuMicros: number;
  beginMicros: number;
  beginCpuMicros: number;
  commitMicros: number;
  commitCpuMicros: number;
  statementMicros: number;
  statementCpuMicros: number;
}

const METHODS = ['run', 'get', 'all', 'iterate'] as const;
const MAX_CALLERS = 12;

/** Counts and times the statements of the databases it is attached to; see the module comment. */
export class StatementProfile {
  private readonly figures = new Map<string, StatementFigures>();
  private readonly transactions: TransactionFigures = {
    count: 0,
    micros: 0,
    cpuMicros: 0,
    beginMicros: 0,
    beginCpuMicros: 0,
    commitMicros: 0,
    commitCpuMicros: 0,
    statementMicros: 0,
    statementCpuMicros: 0,
  };
  private depth = 0;
  /** The clocks of the outermost transaction: at its call, its work's start and its work's end. */
  private marks: { wall: number; cpu: NodeJS.CpuUsage }[] = [];

  constructor(private readonly sampleEvery = 64) {}

  /**
   * Wraps `db.prepare` and `db.transaction` so that what they build is counted; returns `db`.
   * Call it before `reuseStatements(db)`, so a cached statement is wrapped once.
   */
  attach<T extends SqliteDatabase>(db: T): T {
    const compile = db.prepare.bind(db);
    db.prepare = ((sql: string) => this.wrapStatement(sql, compile(sql))) as T['prepare'];
    const build = db.transaction.bind(db);
    db.transaction = ((work: (...args: unknown[]) => unknown) => {
      const tx = build((...args: unknown[]) => this.timeWork(() => work(...args)));
      const timed = (...args: unknown[]) => this.timeTransaction(db, () => tx(...args));
      return Object.assign(timed, {
        deferred: tx.deferred,
        immediate: tx.immediate,
        exclusive: tx.exclusive,
      });
    }) as T['transaction'];
    return db;
  }

  /** The cumulative figures now (copies: later runs do not change them). */
  snapshot(): ProfileSnapshot {
    return {
      statements: [...this.figures.values()].map((f) => ({ ...f, callers: [...f.callers] })),
      transactions: { ...this.transactions },
    };
  }

  private wrapStatement(sql: string, statement: SqliteStatement): SqliteStatement {
    let figures = this.figures.get(sql);
    if (!figures) {
      figures = { sql, runs: 0, inTransaction: 0, micros: 0, cpuMicros: 0, callers: [] };
      this.figures.set(sql, figures);
    }
    const counted = figures;
    for (const method of METHODS) {
      const original = statement[method].bind(statement) as (...args: unknown[]) => unknown;
      (statement as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
        if (counted.runs % this.sampleEvery === 0) this.noteCaller(counted);
        const cpu = process.cpuUsage();
        const started = performance.now();
        try {
          return original(...args);
        } finally {
          const micros = (performance.now() - started) * 1000;
          const cpuMicros = cpuSince(cpu);
          counted.runs++;
          counted.micros += micros;
          counted.cpuMicros += cpuMicros;
          if (this.depth > 0) {
            counted.inTransaction++;
            this.transactions.statementMicros += micros;
            this.transactions.statementCpuMicros += cpuMicros;
          }
        }
      };
    }
    return statement;
  }

  private timeTransaction<R>(db: SqliteDatabase, call: () => R): R {
    if (db.inTransaction) return call();
    this.marks = [mark()];
    this.depth++;
    try {
      return call();
    } finally {
      this.depth--;
      const [called, workStart, workEnd] = this.marks;
      const end = mark();
      const t = this.transactions;
      t.count++;
      if (called) {
        t.micros += (end.wall - called.wall) * 1000;
        t.cpuMicros += cpuSince(called.cpu);
      }
      if (called && workStart) {
        t.beginMicros += (workStart.wall - called.wall) * 1000;
        t.beginCpuMicros += cpuBetween(called.cpu, workStart.cpu);
      }
      if (workEnd) {
        t.commitMicros += (end.wall - workEnd.wall) * 1000;
        t.commitCpuMicros += cpuBetween(workEnd.cpu, end.cpu);
      }
    }
  }

  /** Runs an outermost transaction's work between two marks (BEGIN before, COMMIT after). */
  private timeWork<R>(work: () => R): R {
    if (this.marks.length !== 1) return work();
    this.marks.push(mark());
    try {
      return work();
    } finally {
      this.marks.push(mark());
    }
  }

  private noteCaller(figures: StatementFigures): void {
    if (figures.callers.length >= MAX_CALLERS) return;
    // The stack's first lines: the message, this function, the statement's wrapper.
    const frames = (new Error().stack ?? '')
      .split('\n')
      .slice(3, 6)
      .map((line) => line.trim().replace(/^at /, ''));
    const caller = frames.join(' < ');
    if (!figures.callers.includes(caller)) figures.callers.push(caller);
  }
}

/** The interval between two snapshots of one profile (`after` minus `before`). */
export function profileInterval(before: ProfileSnapshot, after: ProfileSnapshot): ProfileSnapshot {
  const earlier = new Map(before.statements.map((s) => [s.sql, s]));
  const statements = after.statements
    .map((s) => {
      const b = earlier.get(s.sql);
      return {
        ...s,
        runs: s.runs - (b?.runs ?? 0),
        inTransaction: s.inTransaction - (b?.inTransaction ?? 0),
        micros: s.micros - (b?.micros ?? 0),
        cpuMicros: s.cpuMicros - (b?.cpuMicros ?? 0),
      };
    })
    .filter((s) => s.runs > 0);
  const t = after.transactions;
  const u = before.transactions;
  return {
    statements,
    transactions: Object.fromEntries(
      Object.entries(t).map(([key, value]) => [key, value - u[key as keyof TransactionFigures]]),
    ) as unknown as TransactionFigures,
  };
}

/** The process's CPU time since `start` (a process.cpuUsage() value), in microseconds. */
function cpuSince(start: NodeJS.CpuUsage): number {
  const spent = process.cpuUsage(start);
  return spent.user + spent.system;
}

/** CPU time between two process.cpuUsage() values, in microseconds. */
function cpuBetween(from: NodeJS.CpuUsage, to: NodeJS.CpuUsage): number {
  return to.user - from.user + to.system - from.system;
}

function mark(): { wall: number; cpu: NodeJS.CpuUsage } {
  return { wall: performance.now(), cpu: process.cpuUsage() };
}
