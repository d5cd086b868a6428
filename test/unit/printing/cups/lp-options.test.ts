import { describe, expect, it } from 'vitest';
import { lpCommand, lpOption, optionValue } from '../../../../src/printing/cups/lp-options.js';
import { parseCupsUri } from '../../../../src/printing/cups/cups-uri.js';
import { attr } from '../../../../src/printing/ipp/ipp-attributes.js';
import { TAG } from '../../../../src/printing/ipp/ipp-constants.js';
import type { PrintTicket } from '../../../../src/protocol/print-ticket.js';

/** What an IPP Everywhere queue in CUPS reports (trimmed to what the ticket translation reads). */
const queue = {
  'copies-supported': { lower: 1, upper: 9999 },
  'sides-supported': ['one-sided', 'two-sided-long-edge', 'two-sided-short-edge'],
  'print-color-mode-supported': ['monochrome', 'color'],
  'orientation-requested-supported': [3, 4, 5, 6],
  'media-supported': ['na_letter_8.5x11in', 'iso_a4_210x297mm'],
  'media-size-supported': [
    { 'x-dimension': 21000, 'y-dimension': 29700 },
    { 'x-dimension': 21590, 'y-dimension': 27940 },
  ],
  'media-source-supported': ['auto', 'main', 'manual'],
  'page-ranges-supported': true,
  'printer-resolution-supported': [{ x: 600, y: 600, units: 'dpi' }],
  'print-quality-supported': [3, 4, 5],
  'multiple-document-handling-supported': [
    'separate-documents-uncollated-copies',
    'separate-documents-collated-copies',
  ],
};
const local = parseCupsUri('cups://Office');
const job = { jobName: 'report.pdf', userName: 'alice' };

describe('lpCommand', () => {
  it.each<[string, PrintTicket, string[], string[]]>([
    ['defaults', { copies: 1 }, [], []],
    ['copies', { copies: 3 }, ['-n', '3'], []],
    ['duplex', { copies: 1, duplex: 'long-edge' }, ['-o', 'sides=two-sided-long-edge'], []],
    ['mono', { copies: 1, color: false }, ['-o', 'print-color-mode=monochrome'], []],
    ['landscape', { copies: 1, orientation: 'landscape' }, ['-o', 'orientation-requested=4'], []],
    ['A4', { copies: 1, paper: { id: 9 } }, ['-o', 'media=iso_a4_210x297mm'], []],
    [
      'A4 from the manual tray',
      { copies: 1, paper: { id: 9 }, tray: { name: 'manual' } },
      ['-o', 'media-col={media-size={x-dimension=21000 y-dimension=29700} media-source=manual}'],
      [],
    ],
    [
      'pages',
      {
        copies: 1,
        pageRanges: [
          { from: 1, to: 3 },
          { from: 7, to: 7 },
        ],
      },
      ['-o', 'page-ranges=1-3,7'],
      [],
    ],
    ['600 dpi', { copies: 1, resolution: { dpi: 600 } }, ['-o', 'printer-resolution=600dpi'], []],
    ['quality', { copies: 1, resolution: { quality: 'high' } }, ['-o', 'print-quality=5'], []],
    [
      'collate',
      { copies: 2, collate: true },
      ['-n', '2', '-o', 'multiple-document-handling=separate-documents-collated-copies'],
      [],
    ],
    ['unsupported A3', { copies: 1, paper: { id: 8 } }, [], ['paper']],
    ['unsupported 1200 dpi', { copies: 1, resolution: { dpi: 1200 } }, [], ['resolution']],
  ])('%s', (_label, ticket, options, dropped) => {
    const command = lpCommand(local, job, ticket, queue);
    expect(command.args).toEqual(['-d', 'Office', '-t', 'report.pdf', '-U', 'alice', ...options]);
    expect(command.dropped.map((d) => d.option)).toEqual(dropped);
  });

  it('names the server first when the URI has one (lp resolves -d while parsing)', () => {
    const command = lpCommand(parseCupsUri('cups://Lab?server=127.0.0.1:8631'), job, { copies: 1 }, queue);
    expect(command.args.slice(0, 4)).toEqual(['-h', '127.0.0.1:8631', '-d', 'Lab']);
  });

  it('cleans control characters from the job name and refuses an empty user', () => {
    expect(lpCommand(local, { jobName: 'a\nb\tc', userName: 'u' }, { copies: 1 }, queue).args).toContain(
      'a b c',
    );
    expect(() => lpCommand(local, { jobName: 'x', userName: ' ' }, { copies: 1 }, queue)).toThrow(
      'userName: must not be empty',
    );
  });
});

describe('optionValue and lpOption', () => {
  it.each([
    ['keyword', 'one-sided', 'one-sided'],
    ['text with space', 'Tray 2', '"Tray 2"'],
    ['text with quote', 'say "hi"', '"say \\"hi\\""'],
    ['integer', 4, '4'],
    ['boolean', true, 'true'],
    ['range', { lower: 2, upper: 5 }, '2-5'],
    ['single page range', { lower: 2, upper: 2 }, '2'],
    ['square resolution', { x: 300, y: 300, units: 'dpi' as const }, '300dpi'],
    ['resolution', { x: 600, y: 1200, units: 'dpi' as const }, '600x1200dpi'],
    ['dpcm', { x: 118, y: 118, units: 'dpcm' as const }, '118dpcm'],
  ])('%s', (_label, value, text) => {
    expect(optionValue(value)).toBe(text);
  });

  it('writes copies as -n and other attributes as -o', () => {
    expect(lpOption(attr(TAG.INTEGER, 'copies', 4))).toEqual(['-n', '4']);
    expect(lpOption(attr(TAG.KEYWORD, 'finishings', ['staple', 'punch']))).toEqual([
      '-o',
      'finishings=staple,punch',
    ]);
  });

  it('refuses out-of-band values', () => {
    expect(() => optionValue({ outOfBand: 'no-value' } as never)).toThrow(/out-of-band/);
  });
});
