import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { windowsInstallScript } from '../../../src/service/windows-install-script.js';
import { winswPlan } from '../../../src/service/winsw-service.js';

const golden = readFileSync(
  join(import.meta.dirname, '..', '..', 'fixtures', 'windows', 'install.ps1'),
  'utf8',
);

describe('install.ps1 of the Windows artifact', () => {
  it('matches the golden file', () => {
    expect(windowsInstallScript(['better-sqlite3'])).toBe(golden);
  });

  it('runs the icacls commands of `service install`, on $DataDir, before anything is copied there', () => {
    const script = windowsInstallScript([]);
    const home = 'C:\\ProgramData\\PrintRelay';
    const planned = winswPlan('install', {
      node: 'node.exe',
      appDir: 'C:\\App',
      home,
      config: `${home}\\agent.yaml`,
      winsw: 'winsw.exe',
    }).steps.flatMap((s) => (s.kind === 'run' && s.command === 'icacls' ? [s.args] : []));
    const scripted = [...script.matchAll(/^ {2}Invoke-Checked 'icacls' @\((.*)\)\r$/gm)].map((m) =>
      m[1]!.split(', ').map((a) => (a === '$DataDir' ? home : a.replace(/^'|'$/g, ''))),
    );
    expect(scripted).toEqual(planned);
    expect(script.indexOf('Set-PrivateAcl\r\n$Config')).toBeLessThan(script.indexOf('Copy-Item'));
  });

  it('fetches nothing when every native ships its Windows binary', () => {
    const script = windowsInstallScript([]);
    expect(script).not.toContain('npm.cmd');
    expect(script).toContain(
      '# Every native module of this build ships its Windows binary: nothing to fetch.',
    );
  });

  it('uses CRLF line ends throughout, as Windows tools expect', () => {
    expect(windowsInstallScript(['a']).replace(/\r\n/g, '')).not.toContain('\n');
  });
});
