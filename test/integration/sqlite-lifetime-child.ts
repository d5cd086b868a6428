/**
 * Child process of sqlite-lifetime.test.ts, run as `node --expose-gc --import tsx` with a MODE
 * and a DIR. It exercises the SQLite binding the way the agent and the emulator use it, then lets
 * the process end by itself; the test reads its exit status. Prints `binding <package>`, the
 * packages whose files it loaded (`loaded <package>`), and `done` last.
 * - gc: rounds of 20,000 statements prepared and dropped on a plain handle, garbage collected
 *   while the database is open and again after it is closed; then the agent's and the emulator's
 *   databases (statement cache included) opened, used, closed and collected.
 * - exit-open: the agent's and the emulator's databases and prepared statements left open when the
 *   process ends.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import { openEmulatorDatabase } from '../../src/emulator/store/database.js';
import {
  openSqlite,
  SQLITE_PACKAGE,
  type SqliteDatabase,
  type SqliteStatement,
} from '../../src/lib/sqlite.js';
import { openAgentDatabase } from '../../src/store/agent-db.js';

const STATEMENTS = 20_000;
const ROUNDS = 5;
const mode = process.env.MODE;
const dir = process.env.DIR as string;
const collect = (globalThis as { gc?: () => void }).gc;
if (!collect) throw new Error('run with node --expose-gc');

/**
 * One round: STATEMENTS statements prepared and dropped, a full collection, then turns of the
 * event loop with fresh garbage, where V8 runs the rest of the collection's callbacks (better-
 * sqlite3 12 on Node 24 aborted there, mostly in the first rounds).
 */
async function round(db: SqliteDatabase, offset: number): Promise<void> {
  for (let i = 0; i < STATEMENTS; i++) db.prepare(`SELECT ${offset + i} AS n`);
  collect?.();
  await setTimeout(1);
  let garbage: { i: number }[] | undefined = [];
  for (let i = 0; i < 200_000; i++) garbage.push({ i });
  garbage = undefined;
  await setTimeout(1);
}

async function prepareMany(path: string, close: boolean): Promise<void> {
  const db = openSqlite(path);
  const last = db.prepare(`SELECT ${STATEMENTS} AS n`);
  if ((last.get() as { n: number }).n !== STATEMENTS) throw new Error('wrong row');
  for (let r = 0; r < ROUNDS; r++) await round(db, r * STATEMENTS);
  if (close) db.close();
  collect?.();
  await setTimeout(1);
}

function useStores(close: boolean): SqliteStatement[] {
  const agent = openAgentDatabase(join(dir, `agent-${mode}.db`));
  const emulator = openEmulatorDatabase(join(dir, `emulator-${mode}.db`));
  const kept = [agent.prepare('SELECT COUNT(*) AS n FROM jobs'), emulator.prepare('SELECT 1 AS one')];
  for (const statement of kept) statement.get();
  for (let i = 0; i < 1000; i++) agent.prepare(`SELECT ${i} AS n FROM meta`).all();
  if (close) {
    agent.close();
    emulator.close();
  }
  return kept;
}

if (mode === 'gc') {
  await prepareMany(':memory:', false);
  await prepareMany(join(dir, 'plain.db'), true);
  useStores(true);
  collect();
  await setTimeout(1);
} else if (mode === 'exit-open') {
  await prepareMany(join(dir, 'open.db'), false);
  (globalThis as { keep?: unknown }).keep = useStores(false);
} else {
  throw new Error(`MODE must be gc or exit-open, not ${mode}`);
}

const packages = new Set(
  Object.keys(createRequire(import.meta.url).cache).flatMap(
    (file) => /\/node_modules\/(better-sqlite3[^/]*)\//.exec(file)?.[1] ?? [],
  ),
);
console.log(`binding ${SQLITE_PACKAGE}`);
for (const name of packages) console.log(`loaded ${name}`);
console.log('done');
