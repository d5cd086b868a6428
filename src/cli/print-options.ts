/**
 * Turns the options of `printrelay print` into the fields of a Print request (spec section A).
 * Pure and table-tested; a bad value throws a CliError naming the option and the rule.
 */
import { extname } from 'node:path';
import { desktopPapers, paperById, paperByPwgName } from '../protocol/paper-sizes.js';
import { parsePageRanges } from '../protocol/print-request.js';
import { isSupportedExtension, SUPPORTED_FILE_EXTENSIONS } from '../protocol/sfapi-configuration.js';
import { CliError, parseIntegerOption } from './cli-runtime.js';

/** The print options as commander hands them over (all strings or booleans). */
export interface PrintFlags {
  copies?: string;
  duplex?: string;
  /** --color: true; false only from the deprecated spelling --no-color. */
  color?: boolean;
  /** --mono: print in black and white. */
  mono?: boolean;
  paper?: string;
  orientation?: string;
  pages?: string;
  tray?: string;
  type?: string;
  delete?: boolean;
}

/** The option fields of a Print request body (everything except fileid and printerid). */
export interface PrintOptionFields {
  type: string;
  alias: string;
  copies?: number;
  duplex?: boolean;
  duplexmode?: number;
  color?: boolean;
  paperid?: number;
  orientation?: number;
  pageRanges?: string;
  trayname?: string;
  defaultsource?: number;
  printanddelete?: boolean;
}

const DUPLEX: Record<string, { duplex: boolean; duplexmode: number }> = {
  none: { duplex: false, duplexmode: 1 },
  simplex: { duplex: false, duplexmode: 1 },
  'long-edge': { duplex: true, duplexmode: 2 },
  long: { duplex: true, duplexmode: 2 },
  'short-edge': { duplex: true, duplexmode: 3 },
  short: { duplex: true, duplexmode: 3 },
};

/**
 * Notes for standard error about the flags given: `--no-color` still prints in black and
 * white, but that spelling commonly means "no coloured output", so it is deprecated for --mono.
 */
export function printFlagNotes(flags: PrintFlags): string[] {
  if (flags.color !== false) return [];
  return ['--no-color is deprecated for printing in black and white: use --mono (it still works, for now)'];
}

/** Builds the option fields for printing `fileName` with the given flags. */
export function printOptionFields(fileName: string, flags: PrintFlags): PrintOptionFields {
  const alias = fileName.split(/[\\/]/).pop() || fileName;
  const fields: PrintOptionFields = { type: fileType(fileName, flags.type), alias };
  if (flags.copies !== undefined) fields.copies = parseIntegerOption('--copies', flags.copies, 1, 999);
  if (flags.duplex !== undefined) Object.assign(fields, duplexFields(flags.duplex));
  if (flags.mono && flags.color === true)
    throw new CliError('--mono and --color contradict each other: give one of them');
  if (flags.mono || flags.color === false) fields.color = false;
  else if (flags.color) fields.color = true;
  if (flags.paper !== undefined) fields.paperid = paperId(flags.paper);
  if (flags.orientation !== undefined) fields.orientation = orientation(flags.orientation);
  if (flags.pages !== undefined) fields.pageRanges = pageRanges(flags.pages);
  if (flags.tray !== undefined) Object.assign(fields, tray(flags.tray));
  if (flags.delete) fields.printanddelete = true;
  return fields;
}

/** Plain-text extensions the service does not list: such files are sent as `txt`. */
export const TEXT_EXTENSIONS: readonly string[] = [
  'md',
  'markdown',
  'text',
  'json',
  'yaml',
  'yml',
  'ini',
  'conf',
];

function fileType(fileName: string, override?: string): string {
  const given = (override ?? extname(fileName).slice(1)).toLowerCase();
  if (!given) throw new CliError(`--type: the file has no extension; name its type, for example --type pdf`);
  const type = TEXT_EXTENSIONS.includes(given) ? 'txt' : given;
  if (!isSupportedExtension(type)) {
    const source = override === undefined ? `the extension ".${given}"` : `"${given}"`;
    throw new CliError(
      `--type: ${source} is not a file type the service accepts; accepted: ` +
        `${SUPPORTED_FILE_EXTENSIONS.join(', ')} (plain text: ${TEXT_EXTENSIONS.join(', ')}); ` +
        'name the type of the content with --type, for example --type pdf',
    );
  }
  return type;
}

function duplexFields(value: string): { duplex: boolean; duplexmode: number } {
  const found = DUPLEX[value.toLowerCase()];
  if (!found) throw new CliError(`--duplex: must be one of: none, long-edge, short-edge (got "${value}")`);
  return found;
}

function paperId(value: string): number {
  if (/^\d+$/.test(value)) {
    const id = Number(value);
    if (!paperById(id)) throw new CliError(`--paper: ${id} is not a known paper id`);
    return id;
  }
  const byName = desktopPapers.find((p) => p.name.toLowerCase() === value.toLowerCase());
  const paper = byName ?? paperByPwgName(value);
  if (!paper)
    throw new CliError(`--paper: unknown paper "${value}" (use a name such as A4 or Letter, or a paper id)`);
  return paper.id;
}

function orientation(value: string): number {
  const v = value.toLowerCase();
  if (v === 'portrait' || v === '1') return 1;
  if (v === 'landscape' || v === '2') return 2;
  throw new CliError(`--orientation: must be portrait or landscape (got "${value}")`);
}

function pageRanges(value: string): string {
  const compact = value.replace(/\s+/g, '');
  const parsed = parsePageRanges(compact);
  if ('rule' in parsed) throw new CliError(`--pages: ${parsed.rule} (got "${value}")`);
  return compact;
}

function tray(value: string): { trayname: string } | { defaultsource: number } {
  if (/^\d+$/.test(value)) return { defaultsource: Number(value) };
  if (!value.trim()) throw new CliError('--tray: must be a tray name or index');
  return { trayname: value };
}
