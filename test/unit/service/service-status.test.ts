import { describe, expect, it } from 'vitest';
import { parseSystemdShow, parseWinswStatus, statusQuery } from '../../../src/service/service-status.js';

const windows = () => ({
  node: 'C:\\Program Files\\nodejs\\node.exe',
  appDir: 'C:\\Program Files\\PrintRelay',
  home: 'C:\\ProgramData\\PrintRelay',
  config: 'C:\\ProgramData\\PrintRelay\\agent.yaml',
  winsw: 'winsw.exe',
});

describe('service status as data', () => {
  it('asks systemd for exactly the properties it reads', () => {
    const query = statusQuery('systemd', windows);
    expect([query.command, ...query.args]).toEqual([
      'systemctl',
      'show',
      '--property=LoadState,ActiveState,SubState,UnitFileState,MainPID',
      'printrelay-agent.service',
    ]);
  });

  it.each([
    [
      'running and enabled',
      'LoadState=loaded\nActiveState=active\nSubState=running\nUnitFileState=enabled\nMainPID=4242\n',
      { installed: true, running: true, state: 'active/running', enabled: true, pid: 4242 },
    ],
    [
      'installed, stopped, not enabled',
      'MainPID=0\nLoadState=loaded\nActiveState=inactive\nSubState=dead\nUnitFileState=disabled\n',
      { installed: true, running: false, state: 'inactive/dead', enabled: false },
    ],
    [
      'not installed',
      'LoadState=not-found\nActiveState=inactive\nSubState=dead\nUnitFileState=\nMainPID=0\n',
      { installed: false, running: false, state: 'inactive/dead', enabled: false },
    ],
  ])('reads systemctl show: %s', (_name, stdout, expected) => {
    expect(parseSystemdShow(stdout)).toEqual({
      manager: 'systemd',
      service: 'printrelay-agent.service',
      ...expected,
    });
  });

  it('refuses a systemctl answer without the properties, naming them', () => {
    expect(() => parseSystemdShow('LoadState=loaded\n')).toThrow(
      'systemctl show: no ActiveState, SubState, UnitFileState, MainPID in its answer',
    );
  });

  it.each([
    ['Started\r\n', { installed: true, running: true, state: 'Started', enabled: true }],
    ['Stopped\r\n', { installed: true, running: false, state: 'Stopped', enabled: true }],
    ['NonExistent\r\n', { installed: false, running: false, state: 'NonExistent' }],
  ])('reads WinSW status %j', (stdout, expected) => {
    expect(parseWinswStatus(stdout)).toEqual({ manager: 'winsw', service: 'printrelay-agent', ...expected });
  });

  it("asks the service's WinSW host, and reads its absence as not installed", () => {
    const query = statusQuery('winsw', windows);
    expect([query.command, ...query.args]).toEqual([
      'C:\\ProgramData\\PrintRelay\\service\\printrelay-agent.exe',
      'status',
    ]);
    expect(query.absent).toEqual({
      manager: 'winsw',
      service: 'printrelay-agent',
      installed: false,
      running: false,
      state: 'NonExistent',
    });
  });
});
