import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  holdsSecrets,
  loadMigratedAgentConfig,
  migrateAgentFile,
  migrateAgentText,
} from '../../../src/config/config-migrations.js';
import { ConfigError } from '../../../src/config/load-config.js';

const body = 'cloud:\n  url: http://127.0.0.1:8080\n  client_id: demo-app\n';
const dir = mkdtempSync(join(tmpdir(), 'config-migrations-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('migrateAgentText', () => {
  it.each([
    ['no comment', body, `version: 1\n\n${body}`],
    [
      'a header and a key comment',
      `# Site file\n\n# the cloud\n${body}`,
      `# Site file\nversion: 1\n\n# the cloud\n${body}`,
    ],
    ['a key comment only', `# the cloud\n${body}`, `version: 1\n\n# the cloud\n${body}`],
  ])('adds version 1 to a file without one (%s), keeping comments', (_name, text, expected) => {
    expect(migrateAgentText(text, 'a.yaml')).toEqual({
      from: 0,
      to: 1,
      text: expected,
      changes: ['added `version: 1` at the top'],
    });
  });

  it('leaves a current file alone', () => {
    expect(migrateAgentText(`version: 1\n${body}`, 'a.yaml')).toBeUndefined();
  });

  it('refuses a file from a newer PrintRelay, naming the field and the fix', () => {
    expect(() => migrateAgentText(`version: 2\n${body}`, 'a.yaml')).toThrow(ConfigError);
    expect(() => migrateAgentText(`version: 2\n${body}`, 'a.yaml')).toThrow(
      'a.yaml: version: version 2 is newer than this PrintRelay understands (1): upgrade PrintRelay',
    );
  });
});

describe('migrateAgentFile', () => {
  it('rewrites the file keeping its mode and keeps the original as <file>.v0.bak, 0600 with secrets', () => {
    const file = join(dir, 'secret.yaml');
    const original = `${body}  client_secret: s3cret\n`;
    writeFileSync(file, original, { mode: 0o644 });
    chmodSync(file, 0o644);
    const m = migrateAgentFile(file);
    expect(m).toMatchObject({ from: 0, to: 1, file, backup: `${file}.v0.bak` });
    expect(readFileSync(`${file}.v0.bak`, 'utf8')).toBe(original);
    expect(statSync(`${file}.v0.bak`).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe(`version: 1\n\n${original}`);
    expect(statSync(file).mode & 0o777).toBe(0o644);
    expect(migrateAgentFile(file)).toBeUndefined();
  });

  it('gives the backup the original mode when the file holds no secret', () => {
    const file = join(dir, 'plain.yaml');
    writeFileSync(file, `${body}  client_secret: \${file:/etc/printrelay/secret}\n`);
    chmodSync(file, 0o640);
    migrateAgentFile(file);
    expect(statSync(`${file}.v0.bak`).mode & 0o777).toBe(0o640);
  });

  it('migrates in memory when the file cannot be rewritten, saying why, and leaves it untouched', () => {
    const sub = join(dir, 'blocked');
    mkdirSync(sub);
    const file = join(sub, 'agent.yaml');
    writeFileSync(file, body);
    // a directory where the backup would go makes the copy fail, for root too
    mkdirSync(`${file}.v0.bak`);
    const { config, migration } = loadMigratedAgentConfig(file, { env: {} });
    expect(config.version).toBe(1);
    expect(migration?.backup).toBeUndefined();
    expect(migration?.notWritten).toBe(`${file} or ${file}.v0.bak cannot be written (EISDIR)`);
    expect(readFileSync(file, 'utf8')).toBe(body);
  });
});

describe('holdsSecrets', () => {
  const ref = (kind: string, target: string) => `$\{${kind}:${target}}`;
  it.each([
    ['  client_secret: abc', true],
    ['  password: hunter2', true],
    ['    password: "x"', true],
    [`  client_secret: ${ref('file', '/etc/printrelay/secret')}`, false],
    [`  password: ${ref('env', 'PW')}`, false],
    ["  client_secret: ''", false],
    ['  client_secret:', false],
    ['  client_id: demo', false],
  ])('%s -> %s', (line, expected) => {
    expect(holdsSecrets(`cloud:\n${line}\n`)).toBe(expected);
  });
});

describe('loadMigratedAgentConfig', () => {
  it('reports the errors of an unversioned file at the lines as written and leaves it untouched', () => {
    const file = join(dir, 'broken.yaml');
    const text = 'cloud:\n  url: nope\n  client_id: x\n';
    writeFileSync(file, text);
    expect(() => loadMigratedAgentConfig(file, { env: {} })).toThrow(
      `${file}:2:8: cloud.url: must match pattern "^https?://"`,
    );
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(() => statSync(`${file}.v0.bak`)).toThrow(/ENOENT/);
  });
});
