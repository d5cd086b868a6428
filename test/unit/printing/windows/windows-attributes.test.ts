import { describe, expect, it } from 'vitest';
import { ippToPrinterProperties } from '../../../../src/printing/translate/capabilities/ipp-to-properties.js';
import {
  jobStatusToState,
  mediaAttributes,
  printerStateOf,
  windowsJobState,
  windowsPrinterAttributes,
  winspoolName,
  winspoolUri,
} from '../../../../src/printing/windows/windows-attributes.js';
import type { WinPrinterSnapshot } from '../../../../src/printing/windows/windows-queries.js';
import { recording } from './windows-replay.js';

const snapshot = (name: string) => JSON.parse(recording(name)) as WinPrinterSnapshot;

describe('printerStateOf (MSFT_Printer PrinterStatus flags)', () => {
  it.each([
    [0, false, 3, ['none']],
    [0x400, false, 4, ['none']],
    [0x1, false, 5, ['paused']],
    [0x11, false, 5, ['paused', 'media-empty']],
    [0x80, false, 5, ['offline-report']],
    [0x20000, false, 3, ['toner-low']],
    [0x20000 | 0x400, false, 4, ['toner-low']],
    [0x400000, false, 5, ['door-open']],
    [0, true, 5, ['offline-report']],
  ])('status %i (work offline %s) -> state %i %j', (status, offline, state, reasons) => {
    expect(printerStateOf(status, offline)).toEqual({ state, reasons });
  });
});

describe('jobStatusToState (Get-PrintJob JobStatus flags)', () => {
  it.each([
    [0, 'pending'],
    [0x8, 'processing'],
    [0x10, 'processing'],
    [0x1, 'held'],
    [0x2 | 0x10, 'stopped'],
    [0x40, 'stopped'],
    [0x452, 'stopped'],
    [0x80, 'completed'],
    [0x1080, 'completed'],
    [0x1000, 'completed'],
    [0x4, 'cancelled'],
    [0x100 | 0x80, 'cancelled'],
  ])('JobStatus %i -> %s', (status, state) => {
    expect(jobStatusToState(status)).toBe(state);
  });

  it('reports pages and reasons of a recorded job, and a job gone from the queue as completed', () => {
    const [printing] = JSON.parse(recording('get-printjob-printing.json'));
    expect(windowsJobState(printing)).toEqual({
      state: 'processing',
      reasons: ['job-printing'],
      pagesCompleted: 1,
      pagesTotal: 3,
    });
    const [error] = JSON.parse(recording('get-printjob-error.json'));
    expect(windowsJobState(error)).toMatchObject({
      state: 'stopped',
      reasons: ['printer-stopped', 'job-printing'],
    });
    expect(windowsJobState(undefined)).toEqual({
      state: 'completed',
      reasons: ['job-completed-successfully', 'job-not-in-queue'],
    });
  });
});

describe('windowsPrinterAttributes', () => {
  it('maps a color duplex laser to IPP attributes the capability translation reads', () => {
    const attrs = windowsPrinterAttributes(snapshot('snapshot-hp-m479fdw.json'));
    expect(attrs).toMatchObject({
      'printer-name': 'HP Color LaserJet MFP M479fdw',
      'printer-make-and-model': 'HP Color LaserJet Pro M478f-9f PCL-6 (V4)',
      'printer-location': 'Floor 2, copy room',
      'printer-state': 3,
      'printer-state-reasons': ['none'],
      'color-supported': true,
      'print-color-mode-default': 'color',
      'sides-supported': ['one-sided', 'two-sided-long-edge', 'two-sided-short-edge'],
      'sides-default': 'two-sided-long-edge',
      'copies-supported': { lower: 1, upper: 9999 },
      'printer-resolution-default': { x: 600, y: 600, units: 'dpi' },
      'document-format-supported': ['application/pdf'],
    });
    const props = ippToPrinterProperties(attrs);
    expect(props).toMatchObject({ ColorSupported: true, DuplexSupported: true, Collate: true });
    expect(props.MediaSupported).toEqual(
      expect.arrayContaining(['Letter', 'A4', 'Envelope #10', 'Japanese Postcard']),
    );
  });

  it('maps a paused mono printer out of paper', () => {
    const attrs = windowsPrinterAttributes(snapshot('snapshot-brother-hl-l2350dw.json'));
    expect(attrs).toMatchObject({
      'printer-state': 5,
      'printer-state-reasons': ['paused', 'media-empty'],
      'color-supported': false,
      'print-color-mode-supported': ['monochrome'],
      'sides-default': 'one-sided',
      'printer-info': 'Reception',
    });
    expect(attrs['printer-location']).toBeUndefined();
    expect(ippToPrinterProperties(attrs)).toMatchObject({ ColorSupported: false, DuplexSupported: true });
  });

  it('maps the built-in PDF printer without duplex', () => {
    const attrs = windowsPrinterAttributes(snapshot('snapshot-microsoft-print-to-pdf.json'));
    expect(attrs['sides-supported']).toEqual(['one-sided']);
    expect(attrs['media-supported']).toEqual([
      'na_letter_8.5x11in',
      'na_ledger_11x17in',
      'na_legal_8.5x14in',
      'na_invoice_5.5x8.5in',
      'na_executive_7.25x10.5in',
      'iso_a3_297x420mm',
      'iso_a4_210x297mm',
      'iso_a5_148x210mm',
      'jis_b4_257x364mm',
      'jis_b5_182x257mm',
    ]);
  });

  it.each([
    [[], {}],
    [['Custom', 'Oficio 8.5x13'], {}],
    [
      ['a4', 'A4', 'Letter'],
      { 'media-supported': ['iso_a4_210x297mm', 'na_letter_8.5x11in'], 'media-default': 'iso_a4_210x297mm' },
    ],
  ])('media from paper names %j', (names, expected) => {
    expect(mediaAttributes(names)).toEqual(expected);
  });
});

describe('winspool URIs', () => {
  it.each([
    ['HP Color LaserJet MFP M479fdw', 'winspool://HP%20Color%20LaserJet%20MFP%20M479fdw'],
    ['\\\\PRINTSRV01\\Finance-Ricoh', 'winspool://%5C%5CPRINTSRV01%5CFinance-Ricoh'],
  ])('%s <-> %s', (name, uri) => {
    expect(winspoolUri(name)).toBe(uri);
    expect(winspoolName(uri)).toBe(name);
    expect(new URL(uri).href).toBe(uri);
  });

  it.each(['winspool://', 'winspool:///', 'ipp://x', 'winspool://%E0%A4%A'])('rejects %s', (uri) => {
    expect(winspoolName(uri)).toBeUndefined();
  });

  it('accepts the three-slash form', () => {
    expect(winspoolName('winspool:///Microsoft%20Print%20to%20PDF')).toBe('Microsoft Print to PDF');
  });
});
