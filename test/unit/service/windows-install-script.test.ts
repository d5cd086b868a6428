import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WINDOWS_MIN_NODE, windowsInstallScript } from '../../../src/service/windows-install-script.js';
import { winswPlan } from '../../../src/service/winsw-service.js';

const golden = readFileSync(
  join(import.meta.dirname, '..', '..', 'fixtures', 'windows', 'install.ps1'),
  'utf8',
);

describe('install.ps1 of the Windows artifact', () => {
  it('matches the golden file', () => {
    expect(windowsInstallScript()).toBe(golden);
  });

  it('runs the icacls commands of `service install`, on $DataDir, before anything is copied there', () => {
    const script = windowsInstallScript();
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

  it('needs no network: it runs neither npm nor a download', () => {
    expect(windowsInstallScript()).not.toMatch(/npm|rebuild|Invoke-WebRequest|Invoke-RestMethod|https?:/i);
  });

  it('refuses a Node older than 22.14, naming the version found and the one needed, before it touches anything', () => {
    const script = windowsInstallScript();
    expect(WINDOWS_MIN_NODE).toBe('22.14.0');
    expect(script).toContain("$NodeFound = (Invoke-Checked $Node @('--version') | Out-String).Trim()\r\n");
    expect(script).toContain(
      "if ([version]($NodeFound.TrimStart('v') -replace '-.*$', '') -lt [version]'22.14.0') {\r\n" +
        `  throw "PrintRelay needs Node.js 22.14.0 or later, and \${Node} is Node.js \${NodeFound}. ` +
        'Install the current LTS (24 recommended), or pass -Node with a newer node.exe."\r\n}',
    );
    expect(script.indexOf('$NodeFound')).toBeLessThan(script.indexOf('New-Item'));
  });

  it('uses CRLF line ends throughout, as Windows tools expect', () => {
    expect(windowsInstallScript().replace(/\r\n/g, '')).not.toContain('\n');
  });
});
