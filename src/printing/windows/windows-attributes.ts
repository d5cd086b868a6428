/**
 * Windows spooler facts -> the IPP-named attributes the capability translation reads, and
 * Get-PrintJob JobStatus flags -> BackendJobState. Sources: MSFT_Printer.PrinterStatus flags,
 * Win32_Printer.Capabilities codes (2 color, 3 duplex, 5 collation, 15/16 orientation, 19-21
 * quality), PrinterPaperNames, resolutions and MaxCopies; Get-PrintConfiguration for defaults.
 * Documents reach the printer as PDF through pdf-to-printer, so application/pdf is the one
 * format. Pure and table-tested; nothing to clean up.
 */
import { desktopPapers } from '../../protocol/paper-sizes.js';
import type { BackendJobState, BackendJobStateName, PrinterAttributes } from '../printer-backend.js';
import type { WinPrinter, WinPrinterSnapshot, WinPrintJob } from './windows-queries.js';

/** MSFT_Printer PrinterStatus flags -> IPP printer-state-reasons keywords, and whether they stop the printer. */
const PRINTER_FLAGS: [flag: number, reason: string, stops: boolean][] = [
  [0x1, 'paused', true],
  [0x2, 'other-error', true],
  [0x8, 'media-jam', true],
  [0x10, 'media-empty', true],
  [0x40, 'media-needed', true],
  [0x80, 'offline-report', true],
  [0x800, 'output-area-full', true],
  [0x1000, 'offline-report', true],
  [0x20000, 'toner-low', false],
  [0x40000, 'toner-empty', true],
  [0x100000, 'other-error', true],
  [0x200000, 'spool-area-full', true],
  [0x400000, 'door-open', true],
];
const PRINTER_BUSY = 0x200 | 0x400 | 0x4000 | 0x8000 | 0x10000;

/** printer-state (3 idle, 4 processing, 5 stopped) and printer-state-reasons from PrinterStatus. */
export function printerStateOf(status: number, workOffline = false): { state: 3 | 4 | 5; reasons: string[] } {
  const reasons: string[] = [];
  let stopped = workOffline;
  if (workOffline) reasons.push('offline-report');
  for (const [flag, reason, stops] of PRINTER_FLAGS) {
    if ((status & flag) === 0) continue;
    if (!reasons.includes(reason)) reasons.push(reason);
    stopped ||= stops;
  }
  const state = stopped ? 5 : (status & PRINTER_BUSY) !== 0 ? 4 : 3;
  return { state, reasons: reasons.length > 0 ? reasons : ['none'] };
}

const SIDES = ['one-sided', 'two-sided-long-edge', 'two-sided-short-edge'];
const QUALITY_CAPS: Record<number, number> = { 19: 5, 20: 4, 21: 3 };

/** The IPP-named attributes of a Windows printer. */
export function windowsPrinterAttributes(snapshot: WinPrinterSnapshot): PrinterAttributes {
  const { printer, win32, configuration } = snapshot;
  const caps = new Set(win32?.Capabilities ?? []);
  const color = caps.has(2);
  const duplex = caps.has(3);
  const { state, reasons } = printerStateOf(printer.PrinterStatus ?? 0, win32?.WorkOffline === true);
  const attrs: PrinterAttributes = {
    'printer-name': printer.Name,
    'printer-make-and-model': printer.DriverName || 'Windows printer',
    'printer-info': printer.Comment || printer.Name,
    'printer-state': state,
    'printer-state-reasons': reasons,
    'document-format-supported': ['application/pdf'],
    'document-format-default': 'application/pdf',
    'color-supported': color,
    'print-color-mode-supported': color ? ['monochrome', 'color'] : ['monochrome'],
    'print-color-mode-default': color && configuration?.Color !== false ? 'color' : 'monochrome',
    'sides-supported': duplex ? SIDES : ['one-sided'],
    'sides-default': duplex ? (SIDES[configuration?.DuplexingMode ?? 0] ?? 'one-sided') : 'one-sided',
    'orientation-requested-supported': [3, 4],
    'orientation-requested-default': 3,
    'copies-supported': { lower: 1, upper: win32?.MaxCopies && win32.MaxCopies > 0 ? win32.MaxCopies : 999 },
    'page-ranges-supported': true,
  };
  if (printer.Location) attrs['printer-location'] = printer.Location;
  Object.assign(attrs, mediaAttributes(win32?.PrinterPaperNames ?? []), resolutionAttributes(snapshot));
  const qualities = [...caps]
    .map((c) => QUALITY_CAPS[c])
    .filter((q): q is number => q !== undefined)
    .sort();
  if (qualities.length > 0) attrs['print-quality-supported'] = qualities;
  if (caps.has(5)) {
    attrs['multiple-document-handling-supported'] = [
      'separate-documents-uncollated-copies',
      'separate-documents-collated-copies',
    ];
  }
  return attrs;
}

/** Windows paper names -> media-supported PWG keywords (names the paper table lacks are skipped). */
export function mediaAttributes(paperNames: string[]): PrinterAttributes {
  const media: string[] = [];
  for (const name of paperNames) {
    const wanted = name.trim().toLowerCase();
    const paper = desktopPapers.find((p) => p.name.toLowerCase() === wanted);
    if (paper && !media.includes(paper.pwg)) media.push(paper.pwg);
  }
  if (media.length === 0) return {};
  return { 'media-supported': media, 'media-default': media[0] };
}

function resolutionAttributes(snapshot: WinPrinterSnapshot): PrinterAttributes {
  const x = snapshot.win32?.HorizontalResolution;
  const y = snapshot.win32?.VerticalResolution;
  if (!x || x <= 0) return {};
  const resolution = { x, y: y && y > 0 ? y : x, units: 'dpi' };
  return { 'printer-resolution-supported': [resolution], 'printer-resolution-default': resolution };
}

/** JOB_STATUS_* flags of Get-PrintJob. */
export const JOB_STATUS = Object.freeze({
  PAUSED: 0x1,
  ERROR: 0x2,
  DELETING: 0x4,
  SPOOLING: 0x8,
  PRINTING: 0x10,
  OFFLINE: 0x20,
  PAPEROUT: 0x40,
  PRINTED: 0x80,
  DELETED: 0x100,
  BLOCKED_DEVQ: 0x200,
  USER_INTERVENTION: 0x400,
  RESTART: 0x800,
  COMPLETE: 0x1000,
  RETAINED: 0x2000,
});

const JOB_REASONS: [flag: number, reason: string][] = [
  [JOB_STATUS.PAUSED, 'job-hold-until-specified'],
  [JOB_STATUS.ERROR, 'printer-stopped'],
  [JOB_STATUS.OFFLINE, 'printer-stopped'],
  [JOB_STATUS.PAPEROUT, 'printer-stopped'],
  [JOB_STATUS.BLOCKED_DEVQ, 'printer-stopped'],
  [JOB_STATUS.USER_INTERVENTION, 'printer-stopped'],
  [JOB_STATUS.SPOOLING, 'job-incoming'],
  [JOB_STATUS.PRINTING, 'job-printing'],
];

/** JobStatus flags -> a job state; the first matching rule wins (deleted before printed before error). */
export function jobStatusToState(status: number): BackendJobStateName {
  if (status & (JOB_STATUS.DELETED | JOB_STATUS.DELETING)) return 'cancelled';
  if (status & (JOB_STATUS.PRINTED | JOB_STATUS.COMPLETE)) return 'completed';
  if (status & JOB_STATUS.PAUSED) return 'held';
  if (
    status &
    (JOB_STATUS.ERROR |
      JOB_STATUS.OFFLINE |
      JOB_STATUS.PAPEROUT |
      JOB_STATUS.BLOCKED_DEVQ |
      JOB_STATUS.USER_INTERVENTION)
  ) {
    return 'stopped';
  }
  if (status & (JOB_STATUS.PRINTING | JOB_STATUS.SPOOLING)) return 'processing';
  return 'pending';
}

/** A Get-PrintJob record as a BackendJobState; undefined (not in the queue) means it left the spooler. */
export function windowsJobState(job: WinPrintJob | undefined): BackendJobState {
  if (!job) return { state: 'completed', reasons: ['job-completed-successfully', 'job-not-in-queue'] };
  const status = job.JobStatus ?? 0;
  const reasons = [...new Set(JOB_REASONS.filter(([flag]) => (status & flag) !== 0).map(([, r]) => r))];
  const state = jobStatusToState(status);
  if (state === 'completed') reasons.push('job-completed-successfully');
  return {
    state,
    reasons: reasons.length > 0 ? reasons : ['none'],
    pagesCompleted: job.PagesPrinted ?? undefined,
    pagesTotal: job.TotalPages ?? undefined,
  };
}

/** The winspool:// URI of a Windows printer name. */
export function winspoolUri(name: string): string {
  return `winspool://${encodeURIComponent(name)}`;
}

/** The printer name in a winspool:// URI (winspool://NAME or winspool:///NAME, percent-encoded). */
export function winspoolName(uri: string): string | undefined {
  const match = /^winspool:\/\/\/?([^/?#][^?#]*?)\/?$/i.exec(uri);
  if (!match?.[1]) return undefined;
  try {
    const name = decodeURIComponent(match[1]);
    return name.trim() === '' ? undefined : name;
  } catch {
    return undefined;
  }
}

/** Printers from Get-Printer as (name, uri) pairs. */
export function windowsPrintersToEntries(
  printers: WinPrinter[],
): { name: string; uri: string; makeAndModel?: string; location?: string }[] {
  return printers.map((p) => ({
    name: p.Name,
    uri: winspoolUri(p.Name),
    makeAndModel: p.DriverName ?? undefined,
    location: p.Location || undefined,
  }));
}
