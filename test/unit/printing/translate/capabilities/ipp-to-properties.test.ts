import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../../../src/lib/errors.js';
import {
  ippToPrinterProperties,
  traySourceName,
} from '../../../../../src/printing/translate/capabilities/ipp-to-properties.js';
import { parseIpptoolAttributes } from '../../../../../src/printing/translate/capabilities/ipptool-text.js';

const base = { 'media-supported': ['iso_a4_210x297mm'], 'printer-make-and-model': 'Acme 1' };

describe('traySourceName', () => {
  it.each([
    ['tray-1', 'Tray 1'],
    ['tray-12', 'Tray 12'],
    ['auto', 'Automatic'],
    ['manual', 'Manual feed'],
    ['by-pass-tray', 'Bypass tray'],
    ['1st-tray', 'Tray 1'],
    ['2-tray', 'Tray 2'],
    ['roll-2', 'Roll 2'],
    ['large-capacity', 'Large capacity tray'],
    ['com.acme-drawer', 'Com.acme drawer'],
  ])('%s -> %s', (keyword, name) => {
    expect(traySourceName(keyword)).toBe(name);
  });
});

describe('ippToPrinterProperties, attribute by attribute', () => {
  it.each([
    ['no media-source-supported gives [null]', {}, [null]],
    [
      'media-source-default picks the default',
      { 'media-source-supported': ['tray-1', 'tray-2'], 'media-source-default': 'tray-2' },
      [
        { Index: 1, Name: 'Tray 1', Default: false },
        { Index: 2, Name: 'Tray 2', Default: true },
      ],
    ],
    [
      'no default source: the first tray',
      { 'media-source-supported': 'manual' },
      [{ Index: 1, Name: 'Manual feed', Default: true }],
    ],
  ])('trays: %s', (_label, extra, trays) => {
    expect(ippToPrinterProperties({ ...base, ...extra }).Trays).toEqual(trays);
  });

  it('unknown trays give an empty default tray', () => {
    const props = ippToPrinterProperties(base);
    expect(props.Default.Tray).toBe('');
    expect(props.Default.TrayIndex).toBe(0);
  });

  it.each([
    [{ 'sides-supported': ['one-sided'] }, false, 1, 'Simplex'],
    [
      { 'sides-supported': ['one-sided', 'two-sided-long-edge'], 'sides-default': 'two-sided-long-edge' },
      true,
      2,
      'Vertical',
    ],
    [
      { 'sides-supported': ['one-sided', 'two-sided-short-edge'], 'sides-default': 'two-sided-short-edge' },
      true,
      3,
      'Horizontal',
    ],
    [{ 'sides-supported': ['one-sided', 'two-sided-long-edge'] }, true, 1, 'Simplex'],
  ])('duplex %j -> supported %s mode %i', (extra, supported, mode, name) => {
    const props = ippToPrinterProperties({ ...base, ...extra });
    expect([
      props.DuplexSupported,
      props.DuplexMode,
      props.Default.Duplex,
      props.Default.DuplexIndex,
    ]).toEqual([supported, mode, name, mode]);
  });

  it.each([
    [
      { 'print-color-mode-supported': ['monochrome', 'color'], 'print-color-mode-default': 'monochrome' },
      true,
      false,
    ],
    [
      { 'print-color-mode-supported': ['monochrome', 'color'], 'print-color-mode-default': 'auto' },
      true,
      true,
    ],
    [{ 'color-supported': true }, true, true],
    [{ 'color-supported': false, 'print-color-mode-supported': 'monochrome' }, false, false],
  ])('color %j -> supported %s current %s', (extra, supported, current) => {
    const props = ippToPrinterProperties({ ...base, ...extra });
    expect([props.ColorSupported, props.Color, props.Default.Color]).toEqual([
      supported,
      current,
      current ? 'Color' : 'Monochrome',
    ]);
  });

  it.each([
    [{ 'orientation-requested-supported': [3, 4], 'orientation-requested-default': 4 }, [1, 2], 2],
    [{ 'orientation-requested-supported': ['portrait'] }, [1], null],
    [{}, [1, 2], null],
  ])('orientations %j -> %j default %s', (extra, ids, def) => {
    const props = ippToPrinterProperties({ ...base, ...extra });
    expect(props.OrientationsSupportedId).toEqual(ids);
    expect(props.Default.OrientationIndex).toBe(def);
  });

  it.each([
    [
      {
        'printer-resolution-supported': [
          { x: 300, y: 300, units: 3 },
          { x: 600, y: 600, units: 3 },
        ],
      },
      ['300', '600'],
      '300',
    ],
    [
      { 'printer-resolution-supported': ['300dpi', '600dpi'], 'printer-resolution-default': '600dpi' },
      ['300', '600'],
      '600',
    ],
    [
      { 'printer-resolution-supported': '600dpi', 'print-quality-supported': [3, 4, 5] },
      ['Auto', '600'],
      'Auto',
    ],
    [{ 'printer-resolution-supported': '236dpcm' }, ['599'], '599'],
  ])('resolutions %j -> %j default %s', (extra, list, def) => {
    const props = ippToPrinterProperties({ ...base, ...extra });
    expect(props.Resolutions).toEqual(list);
    expect(props.Default.Resolution).toBe(def);
  });

  it('custom ranges add Custom (256) once, unknown sizes keep their PWG name', () => {
    const props = ippToPrinterProperties({
      'media-supported': [
        'iso_a4_210x297mm',
        'om_odd_100x100mm',
        'custom_min_50x50mm',
        'custom_max_300x600mm',
      ],
    });
    expect(props.MediaSupported).toEqual(['A4', 'Custom']);
    expect(props.MediaSupportedId).toEqual([9, 256]);
    expect(props.PaperFormats.map((f) => [f.Id, f.Name])).toEqual([
      [9, 'A4'],
      [256, 'om_odd_100x100mm'],
    ]);
  });

  it('media-col-database sizes are matched to desktop ids, ranges mark custom sizes', () => {
    const props = ippToPrinterProperties({
      'media-col-database': [
        { 'media-size': { 'x-dimension': 21590, 'y-dimension': 27940 } },
        {
          'media-size': {
            'x-dimension': { min: 7620, max: 21590 },
            'y-dimension': { min: 12700, max: 35560 },
          },
        },
      ],
      'media-col-default': { 'media-size': { 'x-dimension': 21590, 'y-dimension': 27940 } },
    });
    expect(props.MediaSupportedId).toEqual([1, 256]);
    expect(props.Default.PaperId).toBe(1);
  });

  it('a printer without any paper size is refused, naming the attribute', () => {
    expect(() => ippToPrinterProperties({ 'printer-make-and-model': 'Empty' })).toThrow(ValidationError);
    expect(() => ippToPrinterProperties({})).toThrow(/media-supported/);
  });

  it('Driver falls back to printer-info, Collate follows multiple-document-handling', () => {
    const props = ippToPrinterProperties({
      'media-supported': 'na_letter_8.5x11in',
      'printer-info': 'Front desk',
      'multiple-document-handling-supported': ['separate-documents-collated-copies'],
    });
    expect([props.Driver, props.Collate]).toEqual(['Front desk', true]);
  });
});

describe('parseIpptoolAttributes', () => {
  const text = [
    '"get-printer-attributes.test":',
    '    Get-Printer-Attributes:',
    '        printer-uri (uri) = ipp://x/ipp/print',
    '    Get printer attributes using get-printer-attributes                  [PASS]',
    '        copies-supported (rangeOfInteger) = 1-999',
    '        color-supported (boolean) = false',
    '        media-col-default (collection) = {media-size={x-dimension=21000 y-dimension=29700} media-source=main}',
    '        media-supported (1setOf keyword) = iso_a4_210x297mm,na_letter_8.5x11in',
    '        orientation-requested-default (enum) = portrait',
    '        printer-up-time (integer) = 6358 (1970-01-01T01:45:58Z)',
    '        printer-geo-location (unknown) = unknown',
    'INFO:   printer-location (textWithoutLanguage) = Hall, floor 2',
  ].join('\n');

  it('reads the response attributes with their syntax', () => {
    expect(parseIpptoolAttributes(text)).toEqual({
      'copies-supported': { min: 1, max: 999 },
      'color-supported': false,
      'media-col-default': {
        'media-size': { 'x-dimension': 21000, 'y-dimension': 29700 },
        'media-source': 'main',
      },
      'media-supported': ['iso_a4_210x297mm', 'na_letter_8.5x11in'],
      'orientation-requested-default': 'portrait',
      'printer-up-time': 6358,
      'printer-location': 'Hall, floor 2',
    });
  });

  it('refuses text without attributes', () => {
    expect(() => parseIpptoolAttributes('nothing here')).toThrow(/ipptool output/);
  });
});
