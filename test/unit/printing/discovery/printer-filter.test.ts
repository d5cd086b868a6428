import { describe, expect, it } from 'vitest';
import {
  discoverAll,
  type PrinterDiscoverer,
  toPrinterEntry,
} from '../../../../src/printing/discovery/discovery.js';
import {
  globToRegExp,
  printerAllowed,
  validatePrinterFilter,
} from '../../../../src/printing/discovery/printer-filter.js';

const office = { name: 'Office Laser', uri: 'cups://Office_Laser' };
const lab = { name: 'Lab', uri: 'ipp://10.0.0.7:631/ipp/print' };

describe('printer filter', () => {
  it.each([
    ['no lists', {}, office, true],
    ['allow by name', { allow: ['office*'] }, office, true],
    ['allow by uri', { allow: ['cups://*'] }, office, true],
    ['not allowed', { allow: ['cups://*'] }, lab, false],
    ['deny by uri', { deny: ['ipp://10.0.0.*'] }, lab, false],
    ['deny wins over allow', { allow: ['*'], deny: ['*laser*'] }, office, false],
    ['? is one character', { allow: ['La?'] }, lab, true],
    ['? is exactly one', { allow: ['La??'] }, lab, false],
    ['regex characters are literal', { allow: ['Office.Laser'] }, office, false],
    ['empty lists', { allow: [], deny: [] }, lab, true],
  ])('%s', (_label, filter, printer, allowed) => {
    expect(printerAllowed(printer, filter)).toBe(allowed);
  });

  it('reports every empty pattern at once, naming the field', () => {
    expect(validatePrinterFilter({ allow: ['ok', ' '], deny: [''] }).map((e) => e.message)).toEqual([
      'allow[1]: glob pattern must not be empty',
      'deny[0]: glob pattern must not be empty',
    ]);
    expect(() => globToRegExp('', 'deny')).toThrow('deny: glob pattern must not be empty');
  });
});

describe('discoverAll', () => {
  const ok: PrinterDiscoverer = {
    source: 'cups',
    discover: async () => ({
      source: 'cups',
      ok: true,
      printers: [
        { ...office, source: 'cups' },
        { ...lab, source: 'cups' },
      ],
    }),
  };
  const failing: PrinterDiscoverer = {
    source: 'dnssd',
    discover: async () => {
      throw new Error('socket closed');
    },
  };

  it('filters successful sources and keeps failed ones as errors', async () => {
    const results = await discoverAll([ok, failing], { deny: ['Lab'] });
    expect(results).toEqual([
      { source: 'cups', ok: true, printers: [{ ...office, source: 'cups' }] },
      { source: 'dnssd', ok: false, error: 'socket closed' },
    ]);
  });

  it('makes config entries', () => {
    expect(toPrinterEntry({ ...office, source: 'cups', location: 'Hall' })).toEqual({
      ...office,
      location: 'Hall',
      enabled: true,
    });
    expect(toPrinterEntry({ ...lab, source: 'dnssd' })).toEqual({ ...lab, enabled: true });
  });
});
