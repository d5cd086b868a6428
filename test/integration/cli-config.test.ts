import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './cli-process.js';

const dir = mkdtempSync(join(tmpdir(), 'printrelay-cli-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('printrelay config validate (real process)', () => {
  it('prints valid and exits 0 for both example files', async () => {
    for (const file of ['config/agent.example.yaml', 'config/emulator.example.yaml']) {
      const result = await runCli(['config', 'validate', file]);
      expect(result).toMatchObject({ code: 0, stdout: 'valid\n' });
    }
  });

  it('prints every error as file:line:col: field: rule and exits 1', async () => {
    const file = join(dir, 'agent.yaml');
    writeFileSync(file, 'cloud:\n  url: http://x/\n  channel: pigeon\nprinter: []\n');
    const result = await runCli(['config', 'validate', file, '--kind', 'agent']);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      `${file}:1:1: cloud.client_id: is required`,
      `${file}:3:12: cloud.channel: must be one of: "websocket", "poll"`,
      `${file}:4:1: printer: unknown key (did you mean "printers"?)`,
    ]);
  });

  it('--json prints the problems as one JSON document on standard output, with the same exit code', async () => {
    const file = join(dir, 'json.yaml');
    writeFileSync(file, 'cloud:\n  url: http://x/\n  channel: pigeon\n');
    const bad = await runCli(['config', 'validate', file, '--kind', 'agent', '--json']);
    expect(bad).toMatchObject({ code: 1, stderr: '' });
    expect(JSON.parse(bad.stdout)).toEqual({
      file,
      kind: 'agent',
      valid: false,
      issues: [
        { file, line: 1, col: 1, field: 'cloud.client_id', rule: 'is required' },
        { file, line: 3, col: 12, field: 'cloud.channel', rule: 'must be one of: "websocket", "poll"' },
      ],
    });
    const good = await runCli(['config', 'validate', 'config/agent.example.yaml', '--json']);
    expect(good.code).toBe(0);
    expect(JSON.parse(good.stdout)).toEqual({
      file: 'config/agent.example.yaml',
      kind: 'agent',
      valid: true,
      issues: [],
    });
  });

  it('applies environment overrides of the process', async () => {
    const result = await runCli(['config', 'validate', 'config/agent.example.yaml'], {
      PRINTRELAY_CLOUD__POLL_INTERVAL_S: '0',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'env PRINTRELAY_CLOUD__POLL_INTERVAL_S: cloud.poll_interval_s: must be >= 1',
    );
  });

  it('the agent refuses an invalid file with the same list', async () => {
    const file = join(dir, 'broken.yaml');
    writeFileSync(file, 'cloud:\n  url: nope\n  client_id: x\n');
    const result = await runCli(['agent', '--config', file, '--data-dir', join(dir, 'data')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${file}:2:8: cloud.url: must match pattern "^https?://"`);
  });

  it('lists the commands in --help', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    for (const command of ['demo', 'emulator', 'agent', 'print', 'config']) {
      expect(result.stdout).toMatch(new RegExp(`^\\s+${command}\\b`, 'm'));
    }
  });
});
