/**
 * `printrelay service` as a real process: the Windows plan printed by --dry-run (the command
 * docs/operations.md shows) is the golden file, the Linux plan is systemctl's, and bad
 * actions or managers are named.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './cli-process.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'windows', 'service');

describe('printrelay service (real process)', () => {
  it('prints the Windows install plan with its WinSW definition', async () => {
    const result = await runCli([
      'service',
      'install',
      '--manager',
      'winsw',
      '--dry-run',
      '--home',
      'C:\\ProgramData\\PrintRelay',
      '--node',
      'C:\\Program Files\\nodejs\\node.exe',
      '--app-dir',
      'C:\\Program Files\\PrintRelay',
    ]);
    expect(result).toMatchObject({
      code: 0,
      stderr: '',
      stdout: readFileSync(join(fixtures, 'install.txt'), 'utf8'),
    });
  });

  it('prints the systemd commands', async () => {
    const result = await runCli(['service', 'stop', '--manager', 'systemd', '--dry-run']);
    expect(result).toMatchObject({ code: 0, stdout: 'run systemctl stop printrelay-agent.service\n' });
  });

  it('names a bad action or manager', async () => {
    expect(await runCli(['service', 'restart'])).toMatchObject({
      code: 1,
      stderr:
        'error: service: action must be one of install, uninstall, start, stop, status, got "restart"\n',
    });
    expect(await runCli(['service', 'status', '--manager', 'launchd'])).toMatchObject({
      code: 1,
      stderr: 'error: --manager: must be one of winsw, systemd, got "launchd"\n',
    });
  });

  it('status --json: a WinSW service never installed is NonExistent, exit 3 (not running)', async () => {
    const home = mkdtempSync(join(tmpdir(), 'printrelay-service-'));
    try {
      const result = await runCli(['service', 'status', '--manager', 'winsw', '--json', '--home', home]);
      expect(result).toMatchObject({ code: 3, stderr: '' });
      expect(JSON.parse(result.stdout)).toEqual({
        manager: 'winsw',
        service: 'printrelay-agent',
        installed: false,
        running: false,
        state: 'NonExistent',
      });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('--json only goes with status', async () => {
    expect(await runCli(['service', 'stop', '--json', '--manager', 'systemd'])).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'error: --json: only with status, not with stop\n',
    });
  });
});
