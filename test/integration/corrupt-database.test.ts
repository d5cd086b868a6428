/**
 * A corrupt SQLite file (agent or emulator): the command stops at once with one line naming the
 * file and the recovery, exit code 78, which the systemd units do not restart on (no crash
 * loop); after the documented recovery (move the file aside) it starts again.
 */
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT_DATABASE_UNREADABLE } from '../../src/lib/database-unreadable.js';
import { openAgentDatabase, SCHEMA_VERSION } from '../../src/store/agent-db.js';
import { writeAgentConfig } from '../e2e/fault-rig.js';
import { CliProcess, runCli } from './cli-process.js';

const dir = mkdtempSync(join(tmpdir(), 'corrupt-db-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Not a database: what a torn copy or a stray write leaves. */
const GARBAGE = Buffer.concat([Buffer.from('definitely not SQLite\n'), Buffer.alloc(8192, 0xa5)]);

describe('a corrupt database file', () => {
  it('stops the agent with exit 78 and a message naming the file and the recovery', async () => {
    const dataDir = join(dir, 'agent');
    const config = join(dir, 'agent.yaml');
    writeAgentConfig(config, 'http://127.0.0.1:9', 9);
    mkdirSync(dataDir);
    const db = join(dataDir, 'agent.db');
    writeFileSync(db, GARBAGE);
    const run = await runCli(['agent', '--config', config, '--data-dir', dataDir]);
    expect(run.code).toBe(EXIT_DATABASE_UNREADABLE);
    expect(run.stderr).toBe(
      `error: agent database ${db} cannot be used (file is not a database): stop the service, move the file aside (mv ${db} ${db}.broken) and start again; see docs/operations.md, "Recovery"\n`,
    );
    // The recovery: moved aside, a fresh database is created on the next start.
    renameSync(db, `${db}.broken`);
    const fresh = openAgentDatabase(db);
    expect(fresh.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    fresh.close();
  });

  it('stops the emulator with exit 78; after moving the file aside it starts on a new database', async () => {
    const db = join(dir, 'emulator.db');
    writeFileSync(db, GARBAGE);
    const args = ['emulator', '--listen', '127.0.0.1:0', '--db', db, '--data-dir', join(dir, 'emulator')];
    const run = await runCli(args);
    expect(run.code).toBe(EXIT_DATABASE_UNREADABLE);
    expect(run.stderr).toBe(
      `error: emulator database ${db} cannot be used (file is not a database): stop the service, move the file aside (mv ${db} ${db}.broken) and start again; see docs/operations.md, "Recovery"\n`,
    );
    renameSync(db, `${db}.broken`);
    const emulator = new CliProcess(args);
    await emulator.waitFor(/listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(await emulator.stop()).toBe(0);
  });

  it('the systemd units do not restart on exit 78', () => {
    for (const unit of ['printrelay-agent.service', 'printrelay-emulator.service']) {
      const text = readFileSync(join(import.meta.dirname, '..', '..', 'packaging', 'systemd', unit), 'utf8');
      expect(text).toMatch(/^RestartPreventExitStatus=78$/m);
      expect(text).toMatch(/^Restart=on-failure$/m);
    }
  });
});
