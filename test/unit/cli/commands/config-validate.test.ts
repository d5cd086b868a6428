import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { validateConfigFile, validationJson } from '../../../../src/cli/commands/config.js';

const dir = mkdtempSync(join(tmpdir(), 'printrelay-validate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('validateConfigFile', () => {
  it('says valid for both example files, guessing the kind', () => {
    expect(validateConfigFile('config/agent.example.yaml', undefined, {})).toMatchObject({
      lines: ['valid'],
      exitCode: 0,
    });
    expect(validateConfigFile('config/emulator.example.yaml', undefined, {})).toMatchObject({
      lines: ['valid'],
      exitCode: 0,
    });
  });

  it('lists every error as file:line:col: field: rule', () => {
    const path = file('bad-agent.yaml', 'cloud:\n  url: ftp://x/\n  bogus: 1\n');
    expect(validateConfigFile(path, undefined, {})).toMatchObject({
      exitCode: 1,
      lines: [
        `${path}:1:1: cloud.client_id: is required`,
        `${path}:2:8: cloud.url: must match pattern "^https?://"`,
        `${path}:3:3: cloud.bogus: unknown key`,
      ],
    });
  });

  it('shows a YAML syntax error at its line and column without --kind', () => {
    const path = file('broken.yaml', 'version: 1\ncloud:\n  url: a: b\n');
    expect(validateConfigFile(path, undefined, {})).toMatchObject({
      exitCode: 1,
      lines: [`${path}:3:8: (yaml): Nested mappings are not allowed in compact mappings`],
    });
  });

  it('suggests the closest valid key for an unknown one', () => {
    const path = file(
      'typo.yaml',
      'version: 1\ncloud:\n  ulr: http://x/\n  client_id: a\n  client_secret: b\nprinterz: []\n',
    );
    expect(validateConfigFile(path, 'agent', {}).lines).toEqual([
      `${path}:2:1: cloud.url: is required`,
      `${path}:3:3: cloud.ulr: unknown key (did you mean "url"?)`,
      `${path}:6:1: printerz: unknown key (did you mean "printers"?)`,
    ]);
  });

  it('uses --kind when given, even against the content', () => {
    const path = file('seed-as-agent.yaml', 'organizations:\n  - name: O\n');
    const report = validateConfigFile(path, 'agent', {});
    expect(report.exitCode).toBe(1);
    expect(report.lines).toContain(`${path}:1:1: organizations: unknown key`);
  });

  it('asks for --kind when the content does not tell', () => {
    const path = file('unknown.yaml', 'hello: world\n');
    expect(validateConfigFile(path, undefined, {})).toMatchObject({
      exitCode: 1,
      lines: [
        `${path}: cannot tell whether this is an agent or an emulator file; pass --kind agent|emulator`,
      ],
    });
  });

  it('rejects an unknown --kind and reports a missing file', () => {
    expect(() => validateConfigFile('config/agent.example.yaml', 'printer', {})).toThrow(
      /^--kind: must be one of/,
    );
    expect(validateConfigFile(join(dir, 'missing.yaml'), 'agent', {})).toMatchObject({
      exitCode: 1,
      lines: [`${join(dir, 'missing.yaml')}: cannot be read (ENOENT)`],
    });
  });

  it('gives the problems with their positions and the kind, for --json', () => {
    const path = file('json-agent.yaml', 'cloud:\n  url: ftp://x/\n');
    const report = validateConfigFile(path, undefined, {});
    expect(JSON.parse(validationJson(path, report))).toEqual({
      file: path,
      kind: 'agent',
      valid: false,
      issues: [
        { file: path, line: 1, col: 1, field: 'cloud.client_id', rule: 'is required' },
        { file: path, line: 2, col: 8, field: 'cloud.url', rule: 'must match pattern "^https?://"' },
      ],
    });
    const valid = validateConfigFile('config/emulator.example.yaml', undefined, {});
    expect(JSON.parse(validationJson('config/emulator.example.yaml', valid))).toEqual({
      file: 'config/emulator.example.yaml',
      kind: 'emulator',
      valid: true,
      issues: [],
    });
    const missing = join(dir, 'missing.yaml');
    expect(JSON.parse(validationJson(missing, validateConfigFile(missing, undefined, {})))).toEqual({
      file: missing,
      kind: null,
      valid: false,
      issues: [{ file: missing, line: 0, col: 0, field: '(root)', rule: 'cannot be read (ENOENT)' }],
    });
  });
});
