import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatServicePlan } from '../../../src/service/service-plan.js';
import { systemdPlan } from '../../../src/service/systemd-service.js';
import { winswDefinition, winswPlan } from '../../../src/service/winsw-service.js';

const fixtures = join(import.meta.dirname, '..', '..', 'fixtures', 'windows', 'service');
const golden = (name: string) => readFileSync(join(fixtures, name), 'utf8');

const settings = {
  node: 'C:\\Program Files\\nodejs\\node.exe',
  appDir: 'C:\\Program Files\\PrintRelay',
  home: 'C:\\ProgramData\\PrintRelay',
  config: 'C:\\ProgramData\\PrintRelay\\agent.yaml',
  winsw: 'C:\\Program Files\\PrintRelay\\node_modules\\node-windows\\bin\\winsw\\winsw.exe',
};

describe('the WinSW service definition', () => {
  it('matches the golden file', () => {
    expect(winswDefinition(settings)).toBe(golden('printrelay-agent.xml'));
  });

  it('escapes XML in paths', () => {
    const xml = winswDefinition({ ...settings, home: 'D:\\Print & Co <1>' });
    expect(xml).toContain('<workingdirectory>D:\\Print &amp; Co &lt;1&gt;</workingdirectory>');
    expect(xml).toContain('<logpath>D:\\Print &amp; Co &lt;1&gt;\\logs</logpath>');
  });

  it('install makes the data directory private to SYSTEM and Administrators before anything is written in it', () => {
    const steps = winswPlan('install', { ...settings, home: 'D:\\Print Data' }).steps;
    const acl = steps.filter((s) => s.kind === 'run' && s.command === 'icacls');
    expect(acl).toEqual([
      { kind: 'run', command: 'icacls', args: ['D:\\Print Data', '/reset', '/T', '/C', '/Q'] },
      {
        kind: 'run',
        command: 'icacls',
        args: [
          'D:\\Print Data',
          '/inheritance:r',
          '/grant:r',
          '*S-1-5-18:(OI)(CI)F',
          '*S-1-5-32-544:(OI)(CI)F',
          '/Q',
        ],
      },
    ]);
    const firstWrite = steps.findIndex((s) => s.kind === 'copy' || s.kind === 'write');
    expect(steps.indexOf(acl[1]!)).toBeLessThan(firstWrite);
    expect(steps.at(-1)).toEqual(expect.objectContaining({ kind: 'run', args: ['start'] }));
  });

  it.each(['install', 'uninstall', 'start', 'stop', 'status'] as const)(
    '%s: the steps match the golden file',
    (action) => {
      expect(formatServicePlan(winswPlan(action, settings))).toBe(golden(`${action}.txt`));
    },
  );
});

describe('the systemd service commands', () => {
  it.each([
    ['install', 'run systemctl enable --now printrelay-agent.service\n'],
    ['uninstall', 'run systemctl disable --now printrelay-agent.service\n'],
    ['start', 'run systemctl start printrelay-agent.service\n'],
    ['stop', 'run systemctl stop printrelay-agent.service\n'],
    ['status', 'run systemctl status --no-pager printrelay-agent.service  (failure ignored)\n'],
  ] as const)('%s', (action, text) => {
    expect(formatServicePlan(systemdPlan(action))).toBe(text);
  });
});
