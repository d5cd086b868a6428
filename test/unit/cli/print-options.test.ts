import { describe, expect, it } from 'vitest';
import { type PrintFlags, printFlagNotes, printOptionFields } from '../../../src/cli/print-options.js';

describe('printOptionFields', () => {
  it.each<[string, string, PrintFlags, Record<string, unknown>]>([
    ['no options', 'doc.pdf', {}, { type: 'pdf', alias: 'doc.pdf' }],
    ['path becomes the alias', '/tmp/a/Report.PDF', {}, { type: 'pdf', alias: 'Report.PDF' }],
    ['type override', 'notes', { type: 'TXT' }, { type: 'txt', alias: 'notes' }],
    ['markdown is sent as text', 'README.md', {}, { type: 'txt', alias: 'README.md' }],
    ['a text type given with --type', 'notes', { type: 'yaml' }, { type: 'txt', alias: 'notes' }],
    ['copies', 'a.pdf', { copies: '3' }, { copies: 3 }],
    ['duplex long-edge', 'a.pdf', { duplex: 'long-edge' }, { duplex: true, duplexmode: 2 }],
    ['duplex short-edge', 'a.pdf', { duplex: 'short-edge' }, { duplex: true, duplexmode: 3 }],
    ['duplex none', 'a.pdf', { duplex: 'none' }, { duplex: false, duplexmode: 1 }],
    ['color', 'a.pdf', { color: true }, { color: true }],
    ['black and white', 'a.pdf', { mono: true }, { color: false }],
    ['black and white, deprecated spelling', 'a.pdf', { color: false }, { color: false }],
    ['paper by name', 'a.pdf', { paper: 'a4' }, { paperid: 9 }],
    ['paper by id', 'a.pdf', { paper: '1' }, { paperid: 1 }],
    ['paper by PWG keyword', 'a.pdf', { paper: 'iso_a5_148x210mm' }, { paperid: 11 }],
    ['landscape', 'a.pdf', { orientation: 'landscape' }, { orientation: 2 }],
    ['portrait', 'a.pdf', { orientation: 'Portrait' }, { orientation: 1 }],
    ['page ranges', 'a.pdf', { pages: '1-3, 5' }, { pageRanges: '1-3,5' }],
    ['page ranges in any order', 'a.pdf', { pages: '5,1-3,2' }, { pageRanges: '5,1-3,2' }],
    ['tray by name', 'a.pdf', { tray: 'Manual' }, { trayname: 'Manual' }],
    ['tray by index', 'a.pdf', { tray: '2' }, { defaultsource: 2 }],
    ['delete after printing', 'a.pdf', { delete: true }, { printanddelete: true }],
  ])('%s', (_name, file, flags, expected) => {
    expect(printOptionFields(file, flags)).toMatchObject(expected);
  });

  it.each<[string, string, PrintFlags, RegExp]>([
    ['no extension', 'README', {}, /^--type: the file has no extension/],
    [
      'unsupported extension',
      'a.exe',
      {},
      /^--type: the extension "\.exe" is not a file type the service accepts; accepted: bmp, csv, doc, .*, xps \(plain text: md, markdown, .*\); name the type of the content with --type, for example --type pdf$/,
    ],
    [
      'unsupported --type',
      'a',
      { type: 'zip' },
      /^--type: "zip" is not a file type the service accepts; accepted: /,
    ],
    ['copies 0', 'a.pdf', { copies: '0' }, /^--copies: expected a whole number from 1 to 999/],
    ['copies text', 'a.pdf', { copies: 'many' }, /^--copies:/],
    ['duplex word', 'a.pdf', { duplex: 'both' }, /^--duplex: must be one of: none, long-edge, short-edge/],
    ['paper unknown', 'a.pdf', { paper: 'Napkin' }, /^--paper: unknown paper "Napkin"/],
    ['paper id unknown', 'a.pdf', { paper: '999' }, /^--paper: 999 is not a known paper id/],
    ['orientation', 'a.pdf', { orientation: 'upside-down' }, /^--orientation: must be portrait or landscape/],
    ['pages syntax', 'a.pdf', { pages: '1-' }, /^--pages: must be pages or ranges like 1-3,5 \(got "1-"\)$/],
    ['pages zero', 'a.pdf', { pages: '0-2' }, /^--pages: pages must be positive \(got "0-2"\)$/],
    ['tray blank', 'a.pdf', { tray: ' ' }, /^--tray: must be a tray name or index/],
    [
      'mono and color',
      'a.pdf',
      { mono: true, color: true },
      /^--mono and --color contradict each other: give one of them$/,
    ],
  ])('rejects %s', (_name, file, flags, message) => {
    expect(() => printOptionFields(file, flags)).toThrow(message);
  });

  it('notes that --no-color is deprecated for --mono, and only then', () => {
    expect(printFlagNotes({ color: false })).toEqual([
      '--no-color is deprecated for printing in black and white: use --mono (it still works, for now)',
    ]);
    expect(printFlagNotes({ mono: true })).toEqual([]);
    expect(printFlagNotes({ color: true })).toEqual([]);
  });
});
