/**
 * One agent per data directory: `agent.lock` in the directory holds the pid of the agent that
 * owns it (JSON: pid, a random token, start time). A second agent on the same directory fails
 * with DataDirLockedError naming the pid and the path. A lock whose pid is dead (a crash, a
 * SIGKILL) is stale and taken over; so is one carrying this process's pid but a token this
 * process never wrote (a pid reused by a container restart). The caller releases the lock.
 * The holder may note how its control API came up (its URL, or why it could not listen) in the
 * record, replaced atomically, so `status` and `doctor` can tell which agent a configuration's
 * data directory belongs to even when that agent's control address is taken by another.
 */
import { randomBytes } from 'node:crypto';
import { link, open, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PrintRelayError } from '../lib/errors.js';

/** The lock file's name inside the data directory. */
export const LOCK_FILE_NAME = 'agent.lock';

/** Another live process holds the data directory. */
export class DataDirLockedError extends PrintRelayError {
  constructor(
    readonly pid: number,
    readonly lockPath: string,
  ) {
    super(
      'data_dir_locked',
      `another agent (pid ${pid}) is using this data directory: lock file ${lockPath}. ` +
        `Stop that agent first, or use another --data-dir. If no printrelay agent runs as pid ${pid}, delete the lock file.`,
    );
  }
}

/** How the holder's control API came up: listening at `url`, or not, with the `error`. */
export interface ControlNote {
  url?: string;
  error?: string;
}

/** What the lock file holds. */
export interface LockRecord {
  pid: number;
  token: string;
  started: string;
  control?: ControlNote;
}

/** Tokens of the locks this process holds, so a same-pid lock can be told apart from a stale one. */
const heldTokens = new Set<string>();

/** A held lock; release() removes the file if it is still ours. */
export class DataDirLock {
  private released = false;

  constructor(
    readonly path: string,
    /** This start's random token, also shown on the control API's /status as `instance`. */
    readonly token: string,
    private readonly started: string,
  ) {}

  /** Records how the control API came up (temp file, then rename: never seen half written). */
  async noteControl(control: ControlNote): Promise<void> {
    if (this.released) return;
    const record: LockRecord = { pid: process.pid, token: this.token, started: this.started, control };
    const temp = `${this.path}.${process.pid}-${this.token}.note`;
    await writeFile(temp, `${JSON.stringify(record)}\n`, { mode: 0o600 });
    await rename(temp, this.path);
  }

  /** Removes the lock file when it still carries our token; safe to call twice. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    heldTokens.delete(this.token);
    const record = await readRecord(this.path);
    if (record?.token === this.token) await unlink(this.path).catch(() => {});
  }
}

/** Whether a process with this pid exists (EPERM means it exists under another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the lock of `dataDir` (which must exist). Throws DataDirLockedError when a live
 * process holds it; takes over a stale lock.
 */
export async function acquireDataDirLock(dataDir: string): Promise<DataDirLock> {
  const path = join(dataDir, LOCK_FILE_NAME);
  const token = randomBytes(12).toString('hex');
  for (let attempt = 0; attempt < 5; attempt++) {
    const started = new Date().toISOString();
    if (await tryCreate(path, token, started)) {
      heldTokens.add(token);
      return new DataDirLock(path, token, started);
    }
    const record = await readRecord(path);
    if (record && isLive(record)) throw new DataDirLockedError(record.pid, path);
    await removeStale(path, record);
  }
  throw new PrintRelayError('data_dir_lock', `could not take the lock file ${path}: it keeps changing`);
}

function isLive(record: LockRecord): boolean {
  if (record.pid === process.pid) return heldTokens.has(record.token);
  return processAlive(record.pid);
}

/**
 * Creates the lock file exclusively; false when it already exists. The record is written to a
 * temp file first and hard-linked into place, so a lock file is never seen half written.
 */
async function tryCreate(path: string, token: string, started: string): Promise<boolean> {
  const record: LockRecord = { pid: process.pid, token, started };
  const temp = `${path}.${process.pid}-${token}.tmp`;
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(record)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temp).catch(() => {});
  }
}

/**
 * The record of the live agent holding `dataDir`, or undefined when none holds it (no lock file,
 * an unreadable one, or one whose process is gone).
 */
export async function readLiveLock(dataDir: string): Promise<LockRecord | undefined> {
  const record = await readRecord(join(dataDir, LOCK_FILE_NAME));
  return record && processAlive(record.pid) ? record : undefined;
}

/** The lock file's record, or undefined when it is gone or unreadable (a crash mid-write). */
async function readRecord(path: string): Promise<LockRecord | undefined> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<LockRecord>;
    if (!Number.isInteger(parsed.pid) || typeof parsed.token !== 'string') return undefined;
    const control = parsed.control;
    return {
      pid: parsed.pid as number,
      token: parsed.token,
      started: String(parsed.started),
      ...(control && typeof control === 'object'
        ? {
            control: {
              ...(typeof control.url === 'string' ? { url: control.url } : {}),
              ...(typeof control.error === 'string' ? { error: control.error } : {}),
            },
          }
        : {}),
    };
  } catch {
    return undefined;
  }
}

/**
 * Moves a stale lock aside and deletes it. When another process replaced the stale lock with
 * its own between our read and the move, the moved file is not the one we judged: it is put
 * back (link fails if yet another lock appeared meanwhile, which then wins).
 */
async function removeStale(path: string, judged: LockRecord | undefined): Promise<void> {
  const aside = `${path}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await rename(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const moved = await readRecord(aside);
  if (moved && moved.token !== judged?.token) await link(aside, path).catch(() => {});
  await unlink(aside).catch(() => {});
}
