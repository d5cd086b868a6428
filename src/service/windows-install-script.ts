/**
 * install.ps1 of the Windows artifact (scripts/build-windows.ts), written from the same steps
 * `printrelay service install` plans: an administrator runs it in the unpacked folder. It makes
 * the data directory private (the icacls commands of privateDirCommands, so both paths agree),
 * puts an agent.yaml there when there is none, fetches the Windows builds of the native modules
 * that npm builds at install time, and with -Service installs and starts the WinSW service.
 * Pure: the text is a function of the list of native packages, so a test checks it exactly.
 */
import type { ServiceStep } from './service-plan.js';
import { privateDirCommands } from './winsw-service.js';

/** The placeholder privateDirCommands gets for the data directory; the script uses $DataDir. */
const DATA_DIR = '\u0000DATA_DIR\u0000';

/** One argument as PowerShell reads it: $DataDir for the data directory, else a literal. */
function psArgument(arg: string): string {
  if (arg === DATA_DIR) return '$DataDir';
  return `'${arg.replace(/'/g, "''")}'`;
}

/** A native command line that stops the script when the command fails. */
function psRun(step: Extract<ServiceStep, { kind: 'run' }>): string {
  return `Invoke-Checked '${step.command}' @(${step.args.map(psArgument).join(', ')})`;
}

/** The whole install.ps1. `rebuild`: packages whose Windows binary npm fetches at install. */
export function windowsInstallScript(rebuild: readonly string[]): string {
  const acl = privateDirCommands(DATA_DIR).map((step) => (step.kind === 'run' ? `  ${psRun(step)}` : ''));
  const natives =
    rebuild.length === 0
      ? ['# Every native module of this build ships its Windows binary: nothing to fetch.']
      : [
          '# These native modules fetch their prebuilt Windows binary from their publisher (npm rebuild).',
          'Push-Location $AppDir',
          'try {',
          `  Invoke-Checked 'npm.cmd' @('rebuild', '--omit=dev', ${rebuild.map(psArgument).join(', ')})`,
          '} finally {',
          '  Pop-Location',
          '}',
        ];
  const lines = [
    '# PrintRelay agent for Windows: prepares this machine. Run in an administrator PowerShell:',
    '#   powershell -ExecutionPolicy Bypass -File install.ps1 [-DataDir DIR] [-Node node.exe] [-Service]',
    '# Without -Service it stops before the service: edit agent.yaml, pair, then run it with -Service.',
    '#Requires -RunAsAdministrator',
    'param(',
    "  [string]$DataDir = (Join-Path $env:ProgramData 'PrintRelay'),",
    '  [string]$Node = (Get-Command node.exe -ErrorAction Stop).Source,',
    '  [switch]$Service',
    ')',
    "$ErrorActionPreference = 'Stop'",
    '$AppDir = $PSScriptRoot',
    '',
    'function Invoke-Checked([string]$Command, [string[]]$Arguments) {',
    '  & $Command @Arguments',
    '  if ($LASTEXITCODE -ne 0) { throw "$Command $($Arguments -join \' \') exited with $LASTEXITCODE" }',
    '}',
    '',
    '# The data directory holds agent.yaml, tokens and the job ledger: SYSTEM and Administrators only.',
    'New-Item -ItemType Directory -Force -Path $DataDir | Out-Null',
    'function Set-PrivateAcl {',
    ...acl,
    '}',
    'Set-PrivateAcl',
    "$Config = Join-Path $DataDir 'agent.yaml'",
    'if (-not (Test-Path $Config)) {',
    "  Copy-Item (Join-Path $AppDir 'config\\agent.example.yaml') $Config",
    '  Write-Host "Wrote $Config from the example: set the cloud URL and the OAuth client."',
    '}',
    '',
    ...natives,
    '',
    "$Cli = Join-Path $AppDir 'bin\\printrelay.js'",
    'if ($Service) {',
    "  Invoke-Checked $Node @($Cli, 'service', 'install', '--home', $DataDir, '--config', $Config, '--node', $Node, '--app-dir', $AppDir)",
    '} else {',
    "  Write-Host \"Next: & '$Node' '$Cli' config validate '$Config'\"",
    "  Write-Host \"      & '$Node' '$Cli' agent pair --config '$Config' --data-dir '$DataDir'\"",
    '  Write-Host "then: install.ps1 -Service"',
    '}',
  ];
  return `${lines.join('\r\n')}\r\n`;
}
