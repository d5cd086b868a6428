/**
 * INI sections of /TPFM/ response bodies ([FileVersions], [Commands], [SYSTEM], [Jobs], [Upload]).
 * Pure: parsing is tolerant (CRLF or LF, blank lines, `;` comments, unknown and repeated
 * sections are kept), formatting always writes CRLF line ends.
 */

/** One `[Name]` section and its raw lines in order (key=value lines or free lines like job entries). */
export interface IniSection {
  name: string;
  lines: string[];
}

/** Parses an INI body into sections; lines before the first section header are ignored. */
export function parseIni(text: string): IniSection[] {
  const sections: IniSection[] = [];
  let current: IniSection | undefined;
  for (const raw of text.replace(/^\uFEFF/, '').split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith(';')) continue;
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (header) {
      current = { name: header[1]!.trim(), lines: [] };
      sections.push(current);
    } else if (current) {
      current.lines.push(line);
    }
  }
  return sections;
}

/** The first section with this name (case-insensitive), or undefined. */
export function findSection(sections: IniSection[], name: string): IniSection | undefined {
  const wanted = name.toLowerCase();
  return sections.find((s) => s.name.toLowerCase() === wanted);
}

/** The key=value lines of a section as a record (first `=` splits; lines without `=` are skipped). */
export function sectionEntries(section: IniSection | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of section?.lines ?? []) {
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    out[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return out;
}

/** key=value lines from a record, in insertion order; keys and values must not hold line breaks. */
export function keyValueLines(entries: Record<string, string | number>): string[] {
  return Object.entries(entries).map(([key, value]) => {
    const text = String(value);
    if (/[\r\n=]/.test(key) || /[\r\n]/.test(text)) {
      throw new RangeError(`INI entry ${key}: keys and values must not contain line breaks (keys no '=')`);
    }
    return `${key}=${text}`;
  });
}

/** Writes sections as an INI body with CRLF line ends and a trailing CRLF. */
export function formatIni(sections: IniSection[]): string {
  return sections.map((s) => [`[${s.name}]`, ...s.lines].join('\r\n') + '\r\n').join('');
}
