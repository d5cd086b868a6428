/**
 * The PowerShell queries of the Windows backend (Get-Printer, Win32_Printer via Get-CimInstance,
 * Get-PrintConfiguration, Get-PrintJob) and the JSON shapes they print. Each query is one
 * PowerShell process (startup dominates the cost), printing one JSON document. The script text is
 * built from quoted literals only (psQuote). Nothing to clean up.
 */
import { PermanentError } from '../../lib/errors.js';
import { type PowerShell, psQuote } from './command-runner.js';

/** Get-Printer fields used (MSFT_Printer; PrinterStatus is the PrinterStatus flags as a number). */
export interface WinPrinter {
  Name: string;
  DriverName?: string | null;
  PortName?: string | null;
  Location?: string | null;
  Comment?: string | null;
  PrinterStatus?: number | null;
  Shared?: boolean | null;
  Type?: number | null;
}

/** Win32_Printer fields used for capabilities. */
export interface Win32Printer {
  Capabilities?: number[] | null;
  PrinterPaperNames?: string[] | null;
  HorizontalResolution?: number | null;
  VerticalResolution?: number | null;
  MaxCopies?: number | null;
  WorkOffline?: boolean | null;
  DetectedErrorState?: number | null;
}

/** Get-PrintConfiguration fields used for defaults (DuplexingMode: 0 one-sided, 1 long, 2 short). */
export interface WinPrintConfiguration {
  Color?: boolean | null;
  DuplexingMode?: number | null;
  Collate?: boolean | null;
}

/** What describe() reads in one PowerShell run. */
export interface WinPrinterSnapshot {
  printer: WinPrinter;
  win32: Win32Printer | null;
  configuration: WinPrintConfiguration | null;
}

/** Get-PrintJob fields used (JobStatus: the JOB_STATUS_* flags as a number). */
export interface WinPrintJob {
  Id: number;
  DocumentName?: string | null;
  JobStatus?: number | null;
  PagesPrinted?: number | null;
  TotalPages?: number | null;
}

const PRINTER_FIELDS = 'Name,DriverName,PortName,Location,Comment,PrinterStatus,Shared,Type';
const WIN32_FIELDS =
  'Capabilities,PrinterPaperNames,HorizontalResolution,VerticalResolution,MaxCopies,WorkOffline,DetectedErrorState';
const JOB_FIELDS = 'Id,DocumentName,JobStatus,PagesPrinted,TotalPages';

/** The describe() script for one printer. */
export function snapshotScript(name: string): string {
  const n = psQuote(name);
  return [
    `$p = Get-Printer -Name ${n} | Select-Object ${PRINTER_FIELDS}`,
    `$w = Get-CimInstance -ClassName Win32_Printer | Where-Object { $_.Name -eq ${n} } | Select-Object ${WIN32_FIELDS}`,
    `$c = Get-PrintConfiguration -PrinterName ${n} | Select-Object Color,DuplexingMode,Collate`,
    '[pscustomobject]@{ printer = $p; win32 = $w; configuration = $c } | ConvertTo-Json -Depth 4 -Compress',
  ].join('; ');
}

/** The Get-PrintJob script: every job of one printer, always as a JSON array. */
export function jobsScript(name: string): string {
  return `ConvertTo-Json -Compress -Depth 3 -InputObject @(Get-PrintJob -PrinterName ${psQuote(name)} | Select-Object ${JOB_FIELDS})`;
}

/** The Get-Printer script listing every printer, always as a JSON array. */
export function listScript(): string {
  return `ConvertTo-Json -Compress -Depth 3 -InputObject @(Get-Printer | Select-Object ${PRINTER_FIELDS})`;
}

/** The Remove-PrintJob script (cancel). */
export function removeJobScript(name: string, id: number): string {
  return `Remove-PrintJob -PrinterName ${psQuote(name)} -ID ${id}; 'null'`;
}

/** Runs the snapshot query. */
export async function readSnapshot(
  ps: PowerShell,
  name: string,
  signal?: AbortSignal,
): Promise<WinPrinterSnapshot> {
  const value = await ps.json(snapshotScript(name), `Get-Printer ${name}`, signal);
  const snapshot = value as Partial<WinPrinterSnapshot> | null;
  if (!snapshot?.printer || typeof snapshot.printer.Name !== 'string') {
    throw new PermanentError('printer_not_found', `Get-Printer ${name}: no such printer`);
  }
  return {
    printer: snapshot.printer,
    win32: snapshot.win32 ?? null,
    configuration: snapshot.configuration ?? null,
  };
}

/** Runs the Get-PrintJob query. */
export async function readJobs(ps: PowerShell, name: string, signal?: AbortSignal): Promise<WinPrintJob[]> {
  return arrayOf<WinPrintJob>(await ps.json(jobsScript(name), `Get-PrintJob ${name}`, signal)).filter(
    (j) => typeof j.Id === 'number',
  );
}

/** Runs the Get-Printer list query. */
export async function readPrinters(ps: PowerShell, signal?: AbortSignal): Promise<WinPrinter[]> {
  return arrayOf<WinPrinter>(await ps.json(listScript(), 'Get-Printer', signal)).filter(
    (p) => typeof p.Name === 'string',
  );
}

function arrayOf<T>(value: unknown): T[] {
  if (value === null || value === undefined) return [];
  return (Array.isArray(value) ? value : [value]) as T[];
}
