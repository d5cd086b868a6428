import { describe, expect, it } from 'vitest';
import type { PrintTicket } from '../../../../src/protocol/print-ticket.js';
import { ticketToPdfOptions } from '../../../../src/printing/windows/pdf-print-options.js';

const colorDuplex = {
  'color-supported': true,
  'sides-supported': ['one-sided', 'two-sided-long-edge', 'two-sided-short-edge'],
  'copies-supported': { lower: 1, upper: 99 },
};
const monoSimplex = {
  'color-supported': false,
  'sides-supported': ['one-sided'],
  'copies-supported': { lower: 1, upper: 1 },
};

describe('ticketToPdfOptions', () => {
  it.each<[string, PrintTicket, Record<string, unknown>, Record<string, unknown>, string[]]>([
    ['defaults', { copies: 1 }, colorDuplex, { printer: 'P' }, []],
    ['copies', { copies: 3 }, colorDuplex, { printer: 'P', copies: 3 }, []],
    ['too many copies', { copies: 3 }, monoSimplex, { printer: 'P' }, ['copies']],
    [
      'short-edge duplex',
      { copies: 1, duplex: 'short-edge' },
      colorDuplex,
      { printer: 'P', side: 'duplexshort' },
      [],
    ],
    [
      'simplex on a simplex printer',
      { copies: 1, duplex: 'simplex' },
      monoSimplex,
      { printer: 'P', side: 'simplex' },
      [],
    ],
    ['duplex without a unit', { copies: 1, duplex: 'long-edge' }, monoSimplex, { printer: 'P' }, ['duplex']],
    ['color', { copies: 1, color: true }, colorDuplex, { printer: 'P', monochrome: false }, []],
    ['color on mono', { copies: 1, color: true }, monoSimplex, { printer: 'P' }, ['color']],
    ['mono on mono', { copies: 1, color: false }, monoSimplex, { printer: 'P', monochrome: true }, []],
    [
      'landscape',
      { copies: 1, orientation: 'landscape' },
      colorDuplex,
      { printer: 'P', orientation: 'landscape' },
      [],
    ],
    [
      'paper by id',
      { copies: 1, paper: { id: 9, name: 'A4' } },
      colorDuplex,
      { printer: 'P', paperKind: 9 },
      [],
    ],
    [
      'custom paper',
      { copies: 1, paper: { id: 256, width: 1000, length: 1500 } },
      colorDuplex,
      { printer: 'P' },
      ['paper'],
    ],
    [
      'tray by name',
      { copies: 1, tray: { name: 'Tray 2' } },
      colorDuplex,
      { printer: 'P', bin: 'Tray 2' },
      [],
    ],
    ['tray by index', { copies: 1, tray: { index: 2 } }, colorDuplex, { printer: 'P', bin: '2' }, []],
    ['empty tray', { copies: 1, tray: { name: ' ' } }, colorDuplex, { printer: 'P' }, ['tray']],
    [
      'pages',
      {
        copies: 1,
        pageRanges: [
          { from: 1, to: 3 },
          { from: 5, to: 5 },
        ],
      },
      colorDuplex,
      { printer: 'P', pages: '1-3,5' },
      [],
    ],
    [
      'resolution and collate',
      { copies: 1, resolution: { dpi: 600 }, collate: true },
      colorDuplex,
      { printer: 'P' },
      ['resolution', 'collate'],
    ],
  ])('%s', (_label, ticket, printer, options, dropped) => {
    const result = ticketToPdfOptions('P', ticket, printer);
    expect(result.options).toEqual(options);
    expect(result.dropped.map((d) => d.option)).toEqual(dropped);
  });
});
