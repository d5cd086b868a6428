/**
 * Response bodies of the /TPFM/ commands built from INI sections, one format/parse pair per
 * command, so the emulator's server and the agent's client read and write the same text. Pure.
 *
 * PrepareUpload's body is not shown by the spec; PrintRelay writes `[Upload]` with `Uri=` and a
 * `[HttpHeaders]` section of `Name=Value` lines (values may hold credentials: never log them).
 */
import { ValidationError } from '../lib/errors.js';
import { findSection, formatIni, keyValueLines, parseIni, sectionEntries } from './tpfm-ini.js';
import { formatJobListLine, parseJobListLine, type TpfmJob } from './tpfm-job-list.js';

/** GetVersion: component file names and their versions. */
export function formatVersionBody(files: Record<string, string>): string {
  return formatIni([{ name: 'FileVersions', lines: keyValueLines(files) }]);
}

/** Reads [FileVersions] of a GetVersion body (other sections are tolerated). */
export function parseVersionBody(text: string): Record<string, string> {
  return sectionEntries(findSection(parseIni(text), 'FileVersions'));
}

/** What GetCapabilities reports. */
export interface TpfmCapabilities {
  commands: string[];
  systemType: string | undefined;
}

/** GetCapabilities: [Commands] numbered from 1 and [SYSTEM] Type=. */
export function formatCapabilitiesBody(caps: TpfmCapabilities): string {
  const commands = Object.fromEntries(caps.commands.map((c, i) => [String(i + 1), c]));
  const sections = [{ name: 'Commands', lines: keyValueLines(commands) }];
  if (caps.systemType !== undefined)
    sections.push({ name: 'SYSTEM', lines: keyValueLines({ Type: caps.systemType }) });
  return formatIni(sections);
}

/** Reads a GetCapabilities body; commands come back in their numeric order. */
export function parseCapabilitiesBody(text: string): TpfmCapabilities {
  const sections = parseIni(text);
  const commands = Object.entries(sectionEntries(findSection(sections, 'Commands')))
    .filter(([key]) => /^\d+$/.test(key))
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([, name]) => name);
  return { commands, systemType: sectionEntries(findSection(sections, 'SYSTEM'))['Type'] };
}

/** GetJobList: a [Jobs] section with one line per job. */
export function formatJobListBody(jobs: TpfmJob[]): string {
  return formatIni([{ name: 'Jobs', lines: jobs.map(formatJobListLine) }]);
}

/** Reads the [Jobs] section; a malformed line throws ValidationError naming the line number. */
export function parseJobListBody(text: string): TpfmJob[] {
  const lines = findSection(parseIni(text), 'Jobs')?.lines ?? [];
  return lines.map((line, index) => {
    try {
      return parseJobListLine(line);
    } catch (error) {
      const reason = error instanceof ValidationError ? error.message : String(error);
      throw new ValidationError(`Jobs line ${index + 1}`, reason);
    }
  });
}

/** PrepareUpload's instruction. */
export interface TpfmUploadInstruction {
  uri: string;
  httpHeaders: Record<string, string>;
}

/** PrepareUpload: [Upload] Uri= and [HttpHeaders]. */
export function formatUploadBody(upload: TpfmUploadInstruction): string {
  return formatIni([
    { name: 'Upload', lines: keyValueLines({ Uri: upload.uri }) },
    { name: 'HttpHeaders', lines: keyValueLines(upload.httpHeaders) },
  ]);
}

/** Reads a PrepareUpload body; a missing Uri is a ValidationError. */
export function parseUploadBody(text: string): TpfmUploadInstruction {
  const sections = parseIni(text);
  const uri = sectionEntries(findSection(sections, 'Upload'))['Uri'];
  if (!uri) throw new ValidationError('Upload.Uri', 'is required in a PrepareUpload response');
  return { uri, httpHeaders: sectionEntries(findSection(sections, 'HttpHeaders')) };
}
