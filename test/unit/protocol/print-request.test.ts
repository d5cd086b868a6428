import { describe, expect, it } from 'vitest';
import { ValidationErrors } from '../../../src/lib/errors.js';
import {
  normalizePageRanges,
  pageCount,
  parsePageRanges,
  parsePrintRequest,
  type PrintRequest,
} from '../../../src/protocol/print-request.js';
import type { PageRange } from '../../../src/protocol/print-ticket.js';

const PRINTER = '3f2b8c1e-9d4a-4e5b-8f6c-1a2b3c4d5e6f';
const base = { fileid: 'abc123', type: 'pdf', printerid: PRINTER };

function errorsOf(body: unknown): { field: string; rule: string }[] {
  try {
    parsePrintRequest(body);
  } catch (error) {
    if (error instanceof ValidationErrors) return error.errors.map((e) => ({ field: e.field, rule: e.rule }));
    throw error;
  }
  throw new Error('expected ValidationErrors');
}

type Good = [string, Record<string, unknown>, Partial<PrintRequest> | ((r: PrintRequest) => void)];

const good: Good[] = [
  [
    'minimal fileid',
    base,
    { source: { fileid: 'abc123' }, type: 'pdf', printerId: PRINTER, alias: 'abc123' },
  ],
  ['defaults', base, { printAndDelete: false, ticket: { copies: 1 } }],
  [
    'fileurl',
    { ...base, fileid: undefined, fileurl: 'https://example.com/a/report.pdf' },
    { source: { fileurl: 'https://example.com/a/report.pdf' }, alias: 'report.pdf' },
  ],
  [
    'fileUrl camel case',
    { type: 'pdf', printerid: PRINTER, fileUrl: 'http://h/x%20y.txt' },
    { alias: 'x y.txt' },
  ],
  [
    'fileurl without path uses host',
    { type: 'pdf', printerid: PRINTER, fileurl: 'http://files.example/' },
    { alias: 'files.example' },
  ],
  ['alias given', { ...base, alias: 'Quarterly.pdf' }, { alias: 'Quarterly.pdf' }],
  ['type upper case', { ...base, type: 'PDF' }, { type: 'pdf' }],
  ['type with dot', { ...base, type: '.docx' }, { type: 'docx' }],
  ['type xps', { ...base, type: 'xps' }, { type: 'xps' }],
  ['printer id upper case', { ...base, printerid: PRINTER.toUpperCase() }, { printerId: PRINTER }],
  ['PrinterId key case', { fileid: 'f', type: 'txt', PrinterId: PRINTER }, { printerId: PRINTER }],
  ['printanddelete bool', { ...base, printanddelete: true }, { printAndDelete: true }],
  ['printAndDelete string', { ...base, printAndDelete: 'TRUE' }, { printAndDelete: true }],
  ['printanddelete "0"', { ...base, printanddelete: '0' }, { printAndDelete: false }],
  ['copies number', { ...base, copies: 3 }, (r) => expect(r.ticket.copies).toBe(3)],
  ['copies string', { ...base, copies: '2' }, (r) => expect(r.ticket.copies).toBe(2)],
  ['copies 999', { ...base, copies: 999 }, (r) => expect(r.ticket.copies).toBe(999)],
  ['Copies key case', { ...base, Copies: ' 7 ' }, (r) => expect(r.ticket.copies).toBe(7)],
  ['color true', { ...base, color: true }, (r) => expect(r.ticket.color).toBe(true)],
  ['color "false"', { ...base, color: 'false' }, (r) => expect(r.ticket.color).toBe(false)],
  ['collate 1', { ...base, collate: 1 }, (r) => expect(r.ticket.collate).toBe(true)],
  ['duplex true', { ...base, duplex: true }, (r) => expect(r.ticket.duplex).toBe('long-edge')],
  ['duplex false', { ...base, duplex: 'false' }, (r) => expect(r.ticket.duplex).toBe('simplex')],
  ['duplexmode 1', { ...base, duplexmode: 1 }, (r) => expect(r.ticket.duplex).toBe('simplex')],
  ['duplexmode 2', { ...base, duplexmode: '2' }, (r) => expect(r.ticket.duplex).toBe('long-edge')],
  [
    'duplexmode 3 with duplex',
    { ...base, DuplexMode: 3, duplex: true },
    (r) => expect(r.ticket.duplex).toBe('short-edge'),
  ],
  ['orientation 1', { ...base, orientation: 1 }, (r) => expect(r.ticket.orientation).toBe('portrait')],
  ['orientation "2"', { ...base, orientation: '2' }, (r) => expect(r.ticket.orientation).toBe('landscape')],
  ['paperid A4', { ...base, paperid: 9 }, (r) => expect(r.ticket.paper).toEqual({ id: 9, name: 'A4' })],
  [
    'paperid Letter string',
    { ...base, PaperId: '1' },
    (r) => expect(r.ticket.paper).toEqual({ id: 1, name: 'Letter' }),
  ],
  [
    'paperid custom',
    { ...base, paperid: 256, paperwidth: 1000, paperlength: '1500' },
    (r) => expect(r.ticket.paper).toEqual({ id: 256, width: 1000, length: 1500 }),
  ],
  [
    'paperwidth ignored without 256',
    { ...base, paperid: 9, paperwidth: 5 },
    (r) => expect(r.ticket.paper).toEqual({ id: 9, name: 'A4' }),
  ],
  ['trayname', { ...base, trayname: 'Tray 2' }, (r) => expect(r.ticket.tray).toEqual({ name: 'Tray 2' })],
  ['defaultsource', { ...base, defaultSource: '3' }, (r) => expect(r.ticket.tray).toEqual({ index: 3 })],
  [
    'defaultsource wins over trayname',
    { ...base, defaultsource: 1, trayname: 'Manual' },
    (r) => expect(r.ticket.tray).toEqual({ index: 1 }),
  ],
  [
    'pageRanges',
    { ...base, pageRanges: '1-3,5' },
    (r) =>
      expect(r.ticket.pageRanges).toEqual([
        { from: 1, to: 3 },
        { from: 5, to: 5 },
      ]),
  ],
  [
    'pageRanges in any order, overlapping, a range written backwards: kept as given',
    { ...base, pageRanges: '5,1-3,2-4,9-7' },
    (r) =>
      expect(r.ticket.pageRanges).toEqual([
        { from: 5, to: 5 },
        { from: 1, to: 3 },
        { from: 2, to: 4 },
        { from: 7, to: 9 },
      ]),
  ],
  [
    'PageRanges key case with spaces',
    { ...base, PageRanges: ' 2 - 4 , 6 ' },
    (r) =>
      expect(r.ticket.pageRanges).toEqual([
        { from: 2, to: 4 },
        { from: 6, to: 6 },
      ]),
  ],
  [
    'resolution number',
    { ...base, resolution: 600 },
    (r) => expect(r.ticket.resolution).toEqual({ dpi: 600 }),
  ],
  [
    'resolution dpi text',
    { ...base, resolution: '300dpi' },
    (r) => expect(r.ticket.resolution).toEqual({ dpi: 300 }),
  ],
  [
    'resolution XxY',
    { ...base, resolution: '600x600' },
    (r) => expect(r.ticket.resolution).toEqual({ dpi: 600 }),
  ],
  [
    'resolution quality',
    { ...base, resolution: 'Auto' },
    (r) => expect(r.ticket.resolution).toEqual({ quality: 'Auto' }),
  ],
  ['locale', { ...base, locale: 'de-DE' }, (r) => expect(r.ticket.locale).toBe('de-DE')],
  ['locale underscore', { ...base, Locale: 'en_US' }, (r) => expect(r.ticket.locale).toBe('en-US')],
  [
    'options inside properties',
    { ...base, properties: { copies: '4', Duplex: 'true' } },
    (r) => expect(r.ticket).toMatchObject({ copies: 4, duplex: 'long-edge' }),
  ],
  [
    'top level wins over properties',
    { ...base, copies: 2, properties: { copies: 5 } },
    (r) => expect(r.ticket.copies).toBe(2),
  ],
  [
    'properties OrientationsSupported',
    { ...base, properties: { OrientationsSupported: 'landscape' } },
    (r) => expect(r.ticket.orientation).toBe('landscape'),
  ],
  [
    'properties MediaSupported',
    { ...base, properties: { MediaSupported: 'A5' } },
    (r) => expect(r.ticket.paper).toEqual({ id: 11, name: 'A5' }),
  ],
  [
    'empty strings are absent',
    { ...base, copies: '', trayname: '', alias: '' },
    (r) => expect(r.ticket).toEqual({ copies: 1 }),
  ],
  [
    'null values are absent',
    { ...base, color: null, paperid: null },
    (r) => expect(r.ticket).toEqual({ copies: 1 }),
  ],
  ['unknown keys ignored', { ...base, somethingElse: 'x' }, (r) => expect(r.ticket).toEqual({ copies: 1 })],
];

type Bad = [string, unknown, { field: string; rule: RegExp }[]];

const bad: Bad[] = [
  ['not an object', 'x', [{ field: 'body', rule: /JSON object/ }]],
  ['array body', [], [{ field: 'body', rule: /JSON object/ }]],
  ['no source', { type: 'pdf', printerid: PRINTER }, [{ field: 'fileid', rule: /exactly one/ }]],
  [
    'both sources',
    { ...base, fileurl: 'http://h/a.pdf' },
    [{ field: 'fileid', rule: /together with fileurl/ }],
  ],
  [
    'fileurl not a URL',
    { type: 'pdf', printerid: PRINTER, fileurl: 'not a url' },
    [{ field: 'fileurl', rule: /http or https/ }],
  ],
  [
    'fileurl ftp',
    { type: 'pdf', printerid: PRINTER, fileurl: 'ftp://h/a.pdf' },
    [{ field: 'fileurl', rule: /http or https/ }],
  ],
  ['fileid with slash', { ...base, fileid: '../etc' }, [{ field: 'fileid', rule: /PrepareUpload/ }]],
  ['fileid object', { ...base, fileid: { a: 1 } }, [{ field: 'fileid', rule: /string/ }]],
  ['type missing', { fileid: 'a', printerid: PRINTER }, [{ field: 'type', rule: /required/ }]],
  ['type unsupported', { ...base, type: 'exe' }, [{ field: 'type', rule: /FILEEXT/ }]],
  ['type ods not in list', { ...base, type: 'ods' }, [{ field: 'type', rule: /FILEEXT/ }]],
  ['printerid missing', { fileid: 'a', type: 'pdf' }, [{ field: 'printerid', rule: /required/ }]],
  ['printerid not uuid', { ...base, printerid: 'printer-1' }, [{ field: 'printerid', rule: /UUID/ }]],
  ['copies 0', { ...base, copies: 0 }, [{ field: 'copies', rule: /between 1 and 999/ }]],
  ['copies 1000', { ...base, copies: '1000' }, [{ field: 'copies', rule: /between 1 and 999/ }]],
  ['copies fraction', { ...base, copies: 1.5 }, [{ field: 'copies', rule: /integer/ }]],
  ['copies words', { ...base, copies: 'two' }, [{ field: 'copies', rule: /integer/ }]],
  ['color word', { ...base, color: 'maybe' }, [{ field: 'color', rule: /boolean/ }]],
  [
    'printanddelete word',
    { ...base, printanddelete: 'yes please' },
    [{ field: 'printanddelete', rule: /boolean/ }],
  ],
  ['duplex word', { ...base, duplex: 'on-ish' }, [{ field: 'duplex', rule: /boolean/ }]],
  ['duplexmode 4', { ...base, duplexmode: 4 }, [{ field: 'duplexmode', rule: /between 1 and 3/ }]],
  ['duplexmode 0', { ...base, duplexmode: '0' }, [{ field: 'duplexmode', rule: /between 1 and 3/ }]],
  [
    'duplexmode contradicts false',
    { ...base, duplexmode: 2, duplex: false },
    [{ field: 'duplexmode', rule: /contradicts/ }],
  ],
  [
    'duplexmode contradicts true',
    { ...base, duplexmode: 1, duplex: true },
    [{ field: 'duplexmode', rule: /contradicts/ }],
  ],
  ['orientation 3', { ...base, orientation: 3 }, [{ field: 'orientation', rule: /between 1 and 2/ }]],
  ['orientation word', { ...base, orientation: 'landscape' }, [{ field: 'orientation', rule: /integer/ }]],
  [
    'properties orientation word',
    { ...base, properties: { OrientationsSupported: 'sideways' } },
    [{ field: 'OrientationsSupported', rule: /portrait or landscape/ }],
  ],
  [
    'properties unknown media',
    { ...base, properties: { MediaSupported: 'Napkin' } },
    [{ field: 'MediaSupported', rule: /known paper/ }],
  ],
  ['paperid unknown', { ...base, paperid: 4242 }, [{ field: 'paperid', rule: /known desktop paper id/ }]],
  ['paperid 0', { ...base, paperid: 0 }, [{ field: 'paperid', rule: /between/ }]],
  [
    'custom without sizes',
    { ...base, paperid: 256 },
    [
      { field: 'paperwidth', rule: /required/ },
      { field: 'paperlength', rule: /required/ },
    ],
  ],
  [
    'custom width too small',
    { ...base, paperid: 256, paperwidth: 10, paperlength: 2000 },
    [{ field: 'paperwidth', rule: /between 100 and 50000/ }],
  ],
  [
    'custom length too big',
    { ...base, paperid: '256', paperwidth: 1000, paperlength: 60000 },
    [{ field: 'paperlength', rule: /between 100 and 50000/ }],
  ],
  ['defaultsource negative', { ...base, defaultsource: -1 }, [{ field: 'defaultsource', rule: /between/ }]],
  ['trayname object', { ...base, trayname: ['a'] }, [{ field: 'trayname', rule: /string/ }]],
  ['pageRanges zero', { ...base, pageRanges: '0-2' }, [{ field: 'pageranges', rule: /positive/ }]],
  ['pageRanges syntax', { ...base, pageRanges: '1-3;5' }, [{ field: 'pageranges', rule: /like 1-3,5/ }]],
  ['pageRanges trailing comma', { ...base, pageRanges: '1,' }, [{ field: 'pageranges', rule: /like 1-3,5/ }]],
  [
    'resolution too low',
    { ...base, resolution: '10' },
    [{ field: 'resolution', rule: /between 50 and 9600/ }],
  ],
  ['resolution junk', { ...base, resolution: '!!!' }, [{ field: 'resolution', rule: /quality word/ }]],
  ['locale bad', { ...base, locale: 'english please' }, [{ field: 'locale', rule: /language tag/ }]],
  ['alias too long', { ...base, alias: 'a'.repeat(256) }, [{ field: 'alias', rule: /at most 255/ }]],
  [
    'every error at once',
    { fileurl: 'nope', type: 'exe', printerid: 'x', copies: 0, orientation: 9, pageRanges: 'a' },
    [
      { field: 'fileurl', rule: /URL/ },
      { field: 'type', rule: /FILEEXT/ },
      { field: 'printerid', rule: /UUID/ },
      { field: 'copies', rule: /between/ },
      { field: 'orientation', rule: /between/ },
      { field: 'pageranges', rule: /like/ },
    ],
  ],
];

describe('parsePrintRequest accepts lenient input', () => {
  it.each(good)('%s', (_name, body, expected) => {
    const result = parsePrintRequest(body);
    if (typeof expected === 'function') expected(result);
    else expect(result).toMatchObject(expected);
  });
});

describe('parsePrintRequest rejects with field and rule', () => {
  it.each(bad)('%s', (_name, body, expected) => {
    const errors = errorsOf(body);
    expect(errors).toHaveLength(expected.length);
    expected.forEach((e, i) => {
      expect(errors[i]?.field).toBe(e.field);
      expect(errors[i]?.rule).toMatch(e.rule);
    });
  });

  it('names the field in the error message', () => {
    expect(() => parsePrintRequest({ ...base, copies: 0 })).toThrow(/copies: must be between 1 and 999/);
  });
});

describe('parsePageRanges', () => {
  it('parses single pages and ranges', () => {
    expect(parsePageRanges('1,3-4,10-12')).toEqual([
      { from: 1, to: 1 },
      { from: 3, to: 4 },
      { from: 10, to: 12 },
    ]);
  });
  it('reports the rule for an empty string', () => {
    expect(parsePageRanges('')).toEqual({ rule: 'must be pages or ranges like 1-3,5' });
  });
});

describe('normalizePageRanges and pageCount', () => {
  it.each<[string, string, [number, number][], number]>([
    [
      'already normal',
      '1-3,5',
      [
        [1, 3],
        [5, 5],
      ],
      4,
    ],
    [
      'any order',
      '5,1-3',
      [
        [1, 3],
        [5, 5],
      ],
      4,
    ],
    [
      'overlapping and adjacent merge',
      '1-3,2-4,5,8',
      [
        [1, 5],
        [8, 8],
      ],
      6,
    ],
    ['repeated page', '2,2,2', [[2, 2]], 1],
    [
      'backwards range',
      '9-7,1',
      [
        [1, 1],
        [7, 9],
      ],
      4,
    ],
  ])('%s: %s', (_name, text, expected, count) => {
    const parsed = parsePageRanges(text) as PageRange[];
    expect(normalizePageRanges(parsed).map((r) => [r.from, r.to])).toEqual(expected);
    expect(pageCount(parsed)).toBe(count);
  });
});
