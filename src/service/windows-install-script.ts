/**
 * install.ps1 of the Windows artifact (scripts/build-windows.ts), written from the same steps
 * `printrelay service install` plans: an administrator runs it in the unpacked folder. It refuses
 * a Node older than WINDOWS_MIN_NODE, makes the data directory private (the icacls commands of
 * privateDirCommands, so both paths agree), puts an agent.yaml there when there is none, and with
 * -Service installs and starts the WinSW service. It needs no network: the artifact carries the
 * Windows binaries of its native modules (better-sqlite3 13's win32-x64 prebuild among them).
 * Pure: a function of nothing, so a test checks it exactly against its golden file.
 */
import type { ServiceStep } from './service-plan.js';
import { privateDirCommands } from './winsw-service.js';

/**
 * The oldest Node the artifact runs on: its SQLite binding is better-sqlite3 13 (Node-API 10,
 * src/lib/sqlite.ts), and better-sqlite3-node20, the line for Node 20, is compiled at install
 * time, so the artifact leaves it out.
 */
export const WINDOWS_MIN_NODE = '22.14.0';

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

/** The whole install.ps1. */
export function windowsInstallScript(): string {
  const acl = privateDirCommands(DATA_DIR).map((step) => (step.kind === 'run' ? `  ${psRun(step)}` : ''));
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
    `# The SQLite binding shipped here (better-sqlite3 13) needs Node ${WINDOWS_MIN_NODE} or later.`,
    "$NodeFound = (Invoke-Checked $Node @('--version') | Out-String).Trim()",
    `if ([version]($NodeFound.TrimStart('v') -replace '-.*$', '') -lt [version]'${WINDOWS_MIN_NODE}') {`,
    `  throw "PrintRelay needs Node.js ${WINDOWS_MIN_NODE} or later, and \${Node} is Node.js \${NodeFound}. Install the current LTS (24 recommended), or pass -Node with a newer node.exe."`,
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
