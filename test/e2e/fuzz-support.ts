/**
 * The invariants every fuzz case of the emulator is held to, and the arbitraries the fuzz
 * tests share. A case is one request (fastify inject, in process, no socket) or one channel
 * message; after it: no 5xx, the database untouched when the request was rejected (SQLite's
 * total_changes() of the emulator's connection), and no internal detail in anything answered.
 */
import type { SqliteDatabase } from '../../src/lib/sqlite.js';
import fc from 'fast-check';

/** Cases per fuzz target: 1,000 in `npm test`; the full proof runs FUZZ_RUNS=10000. */
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 1000);

/** Fixed seed unless FUZZ_SEED is given, so a run is repeatable; the seed is printed on failure. */
export const FUZZ_SEED = process.env.FUZZ_SEED === undefined ? 15_2026 : Number(process.env.FUZZ_SEED);

/** What would betray the implementation: stack frames, SQL and SQLite errors, file paths, JS errors. */
const INTERNAL_DETAIL =
  /SqliteError|SQLITE_|\bSELECT\b.+\bFROM\b|\bINSERT INTO\b|\bat [\w$.<>]+ \(|\/work\/|\/tmp\/|node_modules|\.ts:\d+|\.js:\d+|TypeError|ReferenceError|RangeError|Cannot read propert|is not a function|undefined is not/;

/** The first internal detail found in a response text, or undefined. */
export function internalDetail(text: string): string | undefined {
  return INTERNAL_DETAIL.exec(text)?.[0];
}

/** Rows changed so far by the emulator's connection. */
export function changes(db: SqliteDatabase): number {
  return (db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
}

/** Every table's rows, except a connector's liveness (status, last_seen_online), as text per table. */
function snapshot(db: SqliteDatabase): Map<string, string> {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
    name: string;
  }[];
  const result = new Map<string, string>();
  for (const { name } of tables) {
    const rows = db.prepare(`SELECT * FROM "${name}" ORDER BY rowid`).all() as Record<string, unknown>[];
    if (name === 'connectors')
      for (const row of rows) Object.assign(row, { status: '', last_seen_online: 0 });
    result.set(
      name,
      JSON.stringify(rows, (_k, v) => (Buffer.isBuffer(v) ? v.toString('hex') : v)),
    );
  }
  return result;
}

/**
 * Tells whether a case changed stored state. Cheap in the common case: SQLite's total_changes()
 * says whether anything was written at all; only then are all tables compared with a snapshot,
 * kept current whenever writes happened before the case. The one write a rejected call may make
 * is the calling connector's liveness (any authenticated contact marks it Online), so that is
 * left out of the comparison.
 */
export class StateWatch {
  private mark: number;
  private state: Map<string, string>;

  constructor(private readonly db: SqliteDatabase) {
    this.mark = changes(db);
    this.state = snapshot(db);
  }

  /** Call before each case. */
  before(): void {
    const now = changes(this.db);
    if (now === this.mark) return;
    this.state = snapshot(this.db);
    this.mark = now;
  }

  /** The tables whose rows differ from before the case (empty: untouched). */
  changedTables(): string[] {
    if (changes(this.db) === this.mark) return [];
    const after = snapshot(this.db);
    return [...after.keys()].filter((table) => after.get(table) !== this.state.get(table));
  }
}

/** Tallies of a fuzz run, for the report line and the assertions. */
export class FuzzTally {
  cases = 0;
  rejected = 0;
  accepted = 0;
  readonly statuses = new Map<number, number>();
  readonly problems: string[] = [];

  record(status: number, rejected: boolean): void {
    this.cases++;
    if (rejected) this.rejected++;
    else this.accepted++;
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
  }

  problem(text: string): void {
    if (this.problems.length < 20) this.problems.push(text);
  }

  summary(name: string): string {
    const codes = [...this.statuses].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}:${n}`);
    return `${name}: cases=${this.cases} rejected=${this.rejected} accepted=${this.accepted} statuses {${codes.join(' ')}} problems=${this.problems.length}`;
  }
}

/** Text of every kind a client might send: empty, short, long, unicode, control characters, numbers. */
export const anyText = fc.oneof(
  fc.constant(''),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.integer().map(String),
  fc.double().map(String),
  fc.constantFrom(
    '-1',
    '0',
    '1',
    '2147483648',
    '1e309',
    'NaN',
    'null',
    'true',
    '%00',
    '../../etc/passwd',
    "' OR 1=1 --",
  ),
  fc.string({ minLength: 300, maxLength: 2000 }),
);

/** A JSON value of any shape, including deep nesting, huge numbers and prototype keys. */
export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.dictionary(
    fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('__proto__', 'constructor', 'prototype')),
    fc.jsonValue({ maxDepth: 2 }),
  ),
  fc.constantFrom(null, [], {}, '', 0, -1, 1e308, Number.MAX_SAFE_INTEGER + 2),
);

/** `base` with some of its fields replaced by anything, removed, or given odd types. */
export function mutated(base: Record<string, unknown>): fc.Arbitrary<Record<string, unknown>> {
  const keys = Object.keys(base);
  if (keys.length === 0) return fc.constant(base);
  return fc
    .array(fc.tuple(fc.constantFrom(...keys), fc.oneof(anyJson, anyText, fc.constant(undefined))), {
      minLength: 1,
      maxLength: 3,
    })
    .map((edits) => {
      const copy: Record<string, unknown> = structuredClone(base);
      for (const [key, value] of edits) {
        if (value === undefined) delete copy[key];
        else copy[key] = value;
      }
      return copy;
    });
}
