import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../../src/lib/errors.js';
import { cupsQueuesToPrinters } from '../../../../src/printing/cups/cups-printers.js';
import { cupsUri, isValidQueueName, parseCupsUri } from '../../../../src/printing/cups/cups-uri.js';

describe('parseCupsUri', () => {
  it.each([
    [
      'cups://Office',
      {
        queue: 'Office',
        host: 'localhost',
        port: 631,
        explicitServer: false,
        ippUri: 'ipp://localhost:631/printers/Office',
      },
    ],
    [
      'cups://Office/',
      {
        queue: 'Office',
        host: 'localhost',
        port: 631,
        explicitServer: false,
        ippUri: 'ipp://localhost:631/printers/Office',
      },
    ],
    [
      'cups://Lab_Q?server=127.0.0.1:8631',
      {
        queue: 'Lab_Q',
        host: '127.0.0.1',
        port: 8631,
        explicitServer: true,
        ippUri: 'ipp://127.0.0.1:8631/printers/Lab_Q',
      },
    ],
    [
      'cups://q?server=printhost',
      {
        queue: 'q',
        host: 'printhost',
        port: 631,
        explicitServer: true,
        ippUri: 'ipp://printhost:631/printers/q',
      },
    ],
    [
      'cups://q?server=[::1]:632',
      { queue: 'q', host: '::1', port: 632, explicitServer: true, ippUri: 'ipp://[::1]:632/printers/q' },
    ],
    [
      'cups://caf%C3%A9',
      {
        queue: 'café',
        host: 'localhost',
        port: 631,
        explicitServer: false,
        ippUri: 'ipp://localhost:631/printers/caf%C3%A9',
      },
    ],
  ])('%s', (uri, expected) => {
    expect(parseCupsUri(uri)).toEqual(expected);
  });

  it.each([
    ['ipp://host/q', /not a cups:\/\/ URI/],
    ['cups://', /queue name/],
    ['cups://a%20b', /queue name/],
    ['cups://q/extra', /not a cups:\/\/ URI/],
    ['cups://q?srv=x', /unknown cups:\/\/ parameter 'srv'/],
    ['cups://q?server=host:99999', /server must be HOST or HOST:PORT/],
    ['cups://q?server=a b', /server must be/],
  ])('rejects %s', (uri, message) => {
    expect(() => parseCupsUri(uri)).toThrow(ValidationError);
    expect(() => parseCupsUri(uri)).toThrow(message);
  });

  it('builds URIs that parse back', () => {
    expect(cupsUri('Office')).toBe('cups://Office');
    expect(cupsUri('Office', { host: 'localhost', port: 631 })).toBe('cups://Office');
    expect(cupsUri('Office', { host: '127.0.0.1', port: 8631 })).toBe('cups://Office?server=127.0.0.1:8631');
    expect(parseCupsUri(cupsUri('Q-1', { host: 'h', port: 1 }))).toMatchObject({
      queue: 'Q-1',
      host: 'h',
      port: 1,
    });
  });

  it.each([
    ['Office_Laser-2', true],
    ['', false],
    ['a/b', false],
    ['a b', false],
    ['a#b', false],
    ["a'b", false],
    ['x'.repeat(127), true],
    ['x'.repeat(128), false],
  ])('queue name %j valid: %s', (name, valid) => {
    expect(isValidQueueName(name)).toBe(valid);
  });
});

describe('cupsQueuesToPrinters', () => {
  it('maps CUPS-Get-Printers records, skipping classes and unusable names', () => {
    const records = [
      {
        'printer-name': 'Office',
        'printer-type': 0x801c,
        'printer-make-and-model': 'HP LaserJet',
        'printer-location': 'Hall',
      },
      { 'printer-name': 'AllLasers', 'printer-type': 0x0001 },
      { 'printer-name': 'Lab', 'printer-location': '' },
      { 'printer-info': 'no name' },
    ];
    expect(cupsQueuesToPrinters(records, { host: 'localhost', port: 631 })).toEqual([
      { name: 'Office', uri: 'cups://Office', source: 'cups', makeAndModel: 'HP LaserJet', location: 'Hall' },
      { name: 'Lab', uri: 'cups://Lab', source: 'cups', makeAndModel: undefined, location: undefined },
    ]);
  });
});
