import { chmod, mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '../../src/lib/sqlite.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultEmulatorSeed } from '../../src/config/demo-seed.js';
import { createEmulator } from '../../src/emulator/app.js';
import { createLogger } from '../../src/log/logger.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'emulator-modes-'));
});
afterEach(async () => rm(root, { recursive: true, force: true }));

const mode = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);

async function start(dataDir: string, lines: string[] = []) {
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => lines.push(line) } });
  const emulator = await createEmulator({
    db: join(dataDir, 'emulator.db'),
    dataDir,
    seed: defaultEmulatorSeed(),
    logger,
  });
  await emulator.listen('127.0.0.1', 0);
  return emulator;
}

describe('what the emulator keeps on disk', () => {
  it('creates the data directory 0700, the database 0600 and the private key in its own 0600 file', async () => {
    const dataDir = join(root, 'data');
    const emulator = await start(dataDir);
    await emulator.close();
    expect(await mode(dataDir)).toBe('700');
    expect(await mode(join(dataDir, 'emulator.db'))).toBe('600');
    expect(await mode(join(dataDir, 'keys'))).toBe('700');
    // The signing key's own file, and the webhook passwords' sealing key beside it.
    const keyFiles = (await readdir(join(dataDir, 'keys'))).sort();
    expect(keyFiles).toHaveLength(2);
    expect(keyFiles[0]).toMatch(/^[0-9a-f-]{36}\.private\.jwk$/);
    expect(keyFiles[1]).toBe('webhook-secrets.key');
    for (const file of keyFiles) expect(await mode(join(dataDir, 'keys', file))).toBe('600');
    expect(await mode(join(dataDir, 'files'))).toBe('700');
    expect(await mode(join(dataDir, 'files', '.signing-key'))).toBe('600');
    const db = openSqlite(join(dataDir, 'emulator.db'), { readonly: true });
    const rows = db.prepare('SELECT private_jwk FROM signing_keys').all() as { private_jwk: string }[];
    db.close();
    expect(rows).toEqual([{ private_jwk: '' }]);
  });

  it('moves a private key found in the database to its file and keeps signing with it', async () => {
    const dataDir = join(root, 'data');
    const first = await start(dataDir);
    const kid = first.app.emulator.store.signingKeys.active()!.kid;
    await first.close();
    const keyFile = join(dataDir, 'keys', `${kid}.private.jwk`);
    const { readFile } = await import('node:fs/promises');
    const privateJwk = await readFile(keyFile, 'utf8');
    await rm(keyFile);
    const db = openSqlite(join(dataDir, 'emulator.db'));
    db.prepare('UPDATE signing_keys SET private_jwk = ? WHERE kid = ?').run(privateJwk, kid);
    db.close();
    const second = await start(dataDir);
    expect(second.app.emulator.store.signingKeys.active()!.kid).toBe(kid);
    expect(second.app.emulator.store.signingKeys.active()!.privateJwk).toBe('');
    await second.close();
    expect(await readFile(keyFile, 'utf8')).toBe(privateJwk);
    expect(await mode(keyFile)).toBe('600');
  });

  it('warns at start-up, naming the path, when the data directory or the database is open to others', async () => {
    const dataDir = join(root, 'loose');
    await mkdir(dataDir);
    await chmod(dataDir, 0o755);
    const first = await start(dataDir);
    await first.close();
    await chmod(join(dataDir, 'emulator.db'), 0o644);
    const lines: string[] = [];
    const second = await start(dataDir, lines);
    await second.close();
    const warnings = lines.map((l) => JSON.parse(l)).filter((l) => l.level === 'warn');
    const db = join(dataDir, 'emulator.db');
    // SQLite gives its -wal and -shm files the database file's mode.
    expect(warnings.map((w) => w.path)).toEqual([dataDir, db, `${db}-wal`, `${db}-shm`]);
    expect(warnings[0].msg).toBe(
      `${dataDir} is readable by other users (mode 755); it holds secrets: chmod go-rwx ${dataDir}`,
    );
  });
});
