/** Ticket translation tables: every option, unsupported options dropped, custom sizes, ranges. */
import { describe, expect, it } from 'vitest';
import type { PrintTicket } from '../../../../src/protocol/print-ticket.js';
import type { PrinterAttributes } from '../../../../src/printing/printer-backend.js';
import { attributesToRecord } from '../../../../src/printing/ipp/ipp-attributes.js';
import { notAppliedLines, ticketToIpp } from '../../../../src/printing/translate/ticket-to-ipp.js';

/** A typical office printer, as IppClient decodes it. */
const office: PrinterAttributes = {
  'copies-supported': { lower: 1, upper: 99 },
  'sides-supported': ['one-sided', 'two-sided-long-edge', 'two-sided-short-edge'],
  'print-color-mode-supported': ['auto', 'color', 'monochrome'],
  'orientation-requested-supported': [3, 4, 5, 6],
  'media-supported': ['iso_a4_210x297mm', 'na_letter_8.5x11in'],
  'media-size-supported': [
    { 'x-dimension': 21000, 'y-dimension': 29700 },
    { 'x-dimension': 21590, 'y-dimension': 27940 },
    { 'x-dimension': { lower: 7620, upper: 21590 }, 'y-dimension': { lower: 12700, upper: 35560 } },
  ],
  'media-source-supported': ['auto', 'tray-1', 'manual'],
  'page-ranges-supported': true,
  'printer-resolution-supported': [
    { x: 300, y: 300, units: 'dpi' },
    { x: 600, y: 600, units: 'dpi' },
  ],
  'print-quality-supported': [3, 4, 5],
  'multiple-document-handling-supported': [
    'separate-documents-collated-copies',
    'separate-documents-uncollated-copies',
  ],
};

/** A minimal printer: one-sided mono A4 only, no page ranges, no trays, single copies. */
const basic: PrinterAttributes = {
  'copies-supported': { lower: 1, upper: 1 },
  'sides-supported': 'one-sided',
  'print-color-mode-supported': 'monochrome',
  'orientation-requested-supported': 3,
  'media-supported': 'iso_a4_210x297mm',
};

function translate(ticket: Partial<PrintTicket>, printer = office) {
  const result = ticketToIpp({ copies: 1, ...ticket }, printer);
  return { attrs: attributesToRecord(result.attributes), dropped: result.dropped.map((d) => d.option) };
}

describe('ticketToIpp on a capable printer', () => {
  it.each<[string, Partial<PrintTicket>, Record<string, unknown>]>([
    ['defaults send nothing', {}, {}],
    ['copies', { copies: 3 }, { copies: 3 }],
    ['simplex', { duplex: 'simplex' }, { sides: 'one-sided' }],
    ['long edge', { duplex: 'long-edge' }, { sides: 'two-sided-long-edge' }],
    ['short edge', { duplex: 'short-edge' }, { sides: 'two-sided-short-edge' }],
    ['colour', { color: true }, { 'print-color-mode': 'color' }],
    ['monochrome', { color: false }, { 'print-color-mode': 'monochrome' }],
    ['portrait', { orientation: 'portrait' }, { 'orientation-requested': 3 }],
    ['landscape', { orientation: 'landscape' }, { 'orientation-requested': 4 }],
    ['A4 by id', { paper: { id: 9 } }, { media: 'iso_a4_210x297mm' }],
    ['Letter by id', { paper: { id: 1 } }, { media: 'na_letter_8.5x11in' }],
    [
      'custom size in hundredths of a mm',
      { paper: { id: 256, width: 1000, length: 1500 } },
      { 'media-col': { 'media-size': { 'x-dimension': 10000, 'y-dimension': 15000 } } },
    ],
    [
      'A4 from tray 2 (1-based index) uses media-col',
      { paper: { id: 9 }, tray: { index: 2 } },
      {
        'media-col': {
          'media-size': { 'x-dimension': 21000, 'y-dimension': 29700 },
          'media-source': 'tray-1',
        },
      },
    ],
    ['tray by keyword', { tray: { name: 'manual' } }, { 'media-col': { 'media-source': 'manual' } }],
    ['tray by readable name', { tray: { name: 'Tray 1' } }, { 'media-col': { 'media-source': 'tray-1' } }],
    [
      'index wins over name',
      { tray: { index: 3, name: 'Tray 1' } },
      { 'media-col': { 'media-source': 'manual' } },
    ],
    ['one page range', { pageRanges: [{ from: 2, to: 2 }] }, { 'page-ranges': { lower: 2, upper: 2 } }],
    [
      'several page ranges',
      {
        pageRanges: [
          { from: 1, to: 3 },
          { from: 5, to: 7 },
        ],
      },
      {
        'page-ranges': [
          { lower: 1, upper: 3 },
          { lower: 5, upper: 7 },
        ],
      },
    ],
    [
      'page ranges in any order and overlapping go out ascending and merged',
      {
        pageRanges: [
          { from: 5, to: 5 },
          { from: 2, to: 4 },
          { from: 1, to: 3 },
          { from: 9, to: 9 },
        ],
      },
      {
        'page-ranges': [
          { lower: 1, upper: 5 },
          { lower: 9, upper: 9 },
        ],
      },
    ],
    ['600 dpi', { resolution: { dpi: 600 } }, { 'printer-resolution': { x: 600, y: 600, units: 'dpi' } }],
    [
      '"300dpi" as a word',
      { resolution: { quality: '300dpi' } },
      { 'printer-resolution': { x: 300, y: 300, units: 'dpi' } },
    ],
    ['draft quality', { resolution: { quality: 'draft' } }, { 'print-quality': 3 }],
    ['high quality', { resolution: { quality: 'High' } }, { 'print-quality': 5 }],
    ['Auto quality is the default', { resolution: { quality: 'Auto' } }, {}],
    ['collate', { collate: true }, { 'multiple-document-handling': 'separate-documents-collated-copies' }],
    [
      'uncollated',
      { collate: false },
      { 'multiple-document-handling': 'separate-documents-uncollated-copies' },
    ],
  ])('%s', (_name, ticket, expected) => {
    const { attrs, dropped } = translate(ticket);
    expect(attrs).toEqual(expected);
    expect(dropped).toEqual([]);
  });
});

describe('ticketToIpp drops what the printer cannot do', () => {
  it.each<[string, Partial<PrintTicket>, string[], PrinterAttributes?]>([
    ['copies beyond copies-supported', { copies: 5 }, ['copies'], basic],
    ['copies beyond 99', { copies: 100 }, ['copies']],
    ['zero copies', { copies: 0 }, ['copies']],
    ['duplex on a simplex printer', { duplex: 'long-edge' }, ['duplex'], basic],
    ['colour on a mono printer', { color: true }, ['color'], basic],
    ['landscape unsupported', { orientation: 'landscape' }, ['orientation'], basic],
    ['Letter on an A4-only printer', { paper: { id: 1 } }, ['paper'], basic],
    ['unknown paper id', { paper: { id: 9999 } }, ['paper']],
    ['custom size too large', { paper: { id: 256, width: 5000, length: 5000 } }, ['paper']],
    ['custom size without dimensions', { paper: { id: 256 } }, ['paper']],
    ['tray index out of range', { tray: { index: 9 } }, ['tray']],
    ['unknown tray name', { tray: { name: 'Envelope feeder' } }, ['tray']],
    ['no trays at all', { tray: { index: 1 } }, ['tray'], basic],
    ['page ranges unsupported', { pageRanges: [{ from: 1, to: 2 }] }, ['pageRanges'], basic],
    ['1200 dpi', { resolution: { dpi: 1200 } }, ['resolution']],
    ['unknown quality word', { resolution: { quality: 'ultra' } }, ['resolution']],
    ['collate unsupported', { collate: true }, ['collate'], basic],
    [
      'several at once',
      { copies: 2, duplex: 'short-edge', color: true, collate: false },
      ['copies', 'duplex', 'color', 'collate'],
      basic,
    ],
  ])('%s', (_name, ticket, droppedOptions, printer = office) => {
    const { dropped } = translate(ticket, printer);
    expect(dropped).toEqual(droppedOptions);
  });

  it('keeps the rest of the ticket and says why an option was dropped', () => {
    const result = ticketToIpp({ copies: 1, duplex: 'long-edge', paper: { id: 9 } }, basic);
    expect(attributesToRecord(result.attributes)).toEqual({ media: 'iso_a4_210x297mm' });
    expect(result.dropped).toEqual([
      {
        option: 'duplex',
        value: 'two-sided-long-edge',
        reason: 'sides two-sided-long-edge not in sides-supported',
      },
    ]);
  });

  it('keeps the size and drops only the tray when the tray is unknown', () => {
    const { attrs, dropped } = translate({ paper: { id: 9 }, tray: { name: 'nope' } });
    expect(attrs).toEqual({ media: 'iso_a4_210x297mm' });
    expect(dropped).toEqual(['tray']);
  });
});

describe('notAppliedLines', () => {
  it('tells the user each dropped option, its value and why, one line each', () => {
    const { dropped } = ticketToIpp(
      { copies: 1000, tray: { name: 'Tray 9' }, duplex: 'long-edge' },
      { ...office, 'sides-supported': ['one-sided'] },
    );
    expect(notAppliedLines(dropped)).toEqual([
      'copies 1000: not applied, copies-supported is 1-99',
      'duplex "two-sided-long-edge": not applied, sides two-sided-long-edge not in sides-supported',
      'tray "Tray 9": not applied, the printer has no such tray (it has: Automatic, Tray 1, Manual feed)',
    ]);
    const byIndex = ticketToIpp({ copies: 1, tray: { index: 1 } }, basic).dropped;
    expect(notAppliedLines(byIndex)).toEqual([
      'tray #1: not applied, the printer has no such tray (it has: none listed)',
    ]);
    expect(notAppliedLines([])).toEqual([]);
  });
});
