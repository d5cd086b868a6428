/**
 * The attribute set the virtual printer reports in Get-Printer-Attributes: an IPP Everywhere-like
 * A4/Letter office printer with two trays, duplex, colour, 300/600 dpi, and the job-creation
 * attributes a client needs. Also the "requested-attributes" filter. Pure; nothing to clean up.
 */
import type { IppAttribute, IppCollection } from '../ipp/ipp-codec.js';
import { attr } from '../ipp/ipp-attributes.js';
import { OPERATION, TAG } from '../ipp/ipp-constants.js';

/** What varies between virtual printers and requests. */
export interface VirtualPrinterFacts {
  name: string;
  /** printer-uri-supported, built from the request's Host. */
  uri: string;
  uuid: string;
  /** Seconds since the printer started. */
  upTime: number;
  state: 'idle' | 'processing';
  queuedJobs: number;
}

/** document-format-supported of the virtual printer. */
export const VIRTUAL_FORMATS = [
  'application/pdf',
  'text/plain',
  'image/jpeg',
  'image/png',
  'application/octet-stream',
];

const MEDIA: [keyword: string, x: number, y: number][] = [
  ['iso_a4_210x297mm', 21000, 29700],
  ['na_letter_8.5x11in', 21590, 27940],
  ['na_legal_8.5x14in', 21590, 35560],
  ['iso_a5_148x210mm', 14800, 21000],
  ['na_number-10_4.125x9.5in', 10477, 24130],
];

function mediaSize(x: IppAttribute['values'][number], y: IppAttribute['values'][number]): IppAttribute {
  return attr(TAG.BEGIN_COLLECTION, 'media-size', {
    members: [
      attr(typeof x === 'number' ? TAG.INTEGER : TAG.RANGE_OF_INTEGER, 'x-dimension', x),
      attr(typeof y === 'number' ? TAG.INTEGER : TAG.RANGE_OF_INTEGER, 'y-dimension', y),
    ],
  });
}

function mediaCol(size: IppAttribute, source?: string): IppCollection {
  const margins = ['media-bottom-margin', 'media-left-margin', 'media-right-margin', 'media-top-margin'];
  const members = [size, ...margins.map((m) => attr(TAG.INTEGER, m, 423))];
  if (source) members.push(attr(TAG.KEYWORD, 'media-source', source));
  members.push(attr(TAG.KEYWORD, 'media-type', 'stationery'));
  return { members };
}

const CUSTOM_X = { lower: 7620, upper: 21590 };
const CUSTOM_Y = { lower: 12700, upper: 35560 };

/** Operations the virtual printer serves. */
export const VIRTUAL_OPERATIONS = [
  OPERATION.PRINT_JOB,
  OPERATION.VALIDATE_JOB,
  OPERATION.CANCEL_JOB,
  OPERATION.GET_JOB_ATTRIBUTES,
  OPERATION.GET_JOBS,
  OPERATION.GET_PRINTER_ATTRIBUTES,
];

/** The full attribute list (printer-description and job-template groups together). */
export function virtualPrinterAttributes(facts: VirtualPrinterFacts): IppAttribute[] {
  const K = TAG.KEYWORD;
  return [
    attr(TAG.URI, 'printer-uri-supported', facts.uri),
    attr(K, 'uri-security-supported', 'none'),
    attr(K, 'uri-authentication-supported', 'none'),
    attr(TAG.NAME, 'printer-name', facts.name),
    attr(TAG.TEXT, 'printer-info', `PrintRelay virtual printer ${facts.name}`),
    attr(TAG.TEXT, 'printer-location', 'PrintRelay (built in)'),
    attr(TAG.URI, 'printer-more-info', facts.uri.replace(/^ipp/, 'http')),
    attr(TAG.TEXT, 'printer-make-and-model', 'PrintRelay Virtual Printer'),
    attr(TAG.TEXT, 'printer-device-id', 'MFG:PrintRelay;MDL:Virtual Printer;CMD:PDF,PNG,JPEG;CLS:PRINTER;'),
    attr(TAG.URI, 'printer-uuid', `urn:uuid:${facts.uuid}`),
    attr(TAG.ENUM, 'printer-state', facts.state === 'idle' ? 3 : 4),
    attr(K, 'printer-state-reasons', 'none'),
    attr(TAG.TEXT, 'printer-state-message', facts.state === 'idle' ? 'Ready' : 'Printing'),
    attr(TAG.BOOLEAN, 'printer-is-accepting-jobs', true),
    attr(TAG.INTEGER, 'queued-job-count', facts.queuedJobs),
    attr(TAG.INTEGER, 'printer-up-time', Math.max(1, facts.upTime)),
    attr(K, 'ipp-versions-supported', ['1.0', '1.1', '2.0']),
    attr(K, 'ipp-features-supported', 'ipp-everywhere'),
    attr(TAG.ENUM, 'operations-supported', VIRTUAL_OPERATIONS),
    attr(TAG.CHARSET, 'charset-configured', 'utf-8'),
    attr(TAG.CHARSET, 'charset-supported', 'utf-8'),
    attr(TAG.NATURAL_LANGUAGE, 'natural-language-configured', 'en'),
    attr(TAG.NATURAL_LANGUAGE, 'generated-natural-language-supported', 'en'),
    attr(K, 'compression-supported', 'none'),
    attr(TAG.MIME_TYPE, 'document-format-default', 'application/octet-stream'),
    attr(TAG.MIME_TYPE, 'document-format-supported', VIRTUAL_FORMATS),
    attr(K, 'pdl-override-supported', 'attempted'),
    attr(K, 'job-creation-attributes-supported', [
      'copies',
      'sides',
      'print-color-mode',
      'orientation-requested',
      'media',
      'media-col',
      'page-ranges',
      'printer-resolution',
      'print-quality',
      'multiple-document-handling',
    ]),
    attr(K, 'which-jobs-supported', ['completed', 'not-completed', 'all']),
    attr(TAG.BOOLEAN, 'color-supported', true),
    attr(TAG.INTEGER, 'pages-per-minute', 30),
    attr(TAG.INTEGER, 'pages-per-minute-color', 20),
    attr(TAG.ENUM, 'finishings-default', 3),
    attr(TAG.ENUM, 'finishings-supported', 3),
    attr(K, 'output-bin-default', 'face-down'),
    attr(K, 'output-bin-supported', 'face-down'),
    attr(TAG.INTEGER, 'copies-default', 1),
    attr(TAG.RANGE_OF_INTEGER, 'copies-supported', { lower: 1, upper: 999 }),
    attr(K, 'sides-default', 'one-sided'),
    attr(K, 'sides-supported', ['one-sided', 'two-sided-long-edge', 'two-sided-short-edge']),
    attr(K, 'print-color-mode-default', 'auto'),
    attr(K, 'print-color-mode-supported', ['auto', 'color', 'monochrome']),
    attr(TAG.ENUM, 'orientation-requested-default', 3),
    attr(TAG.ENUM, 'orientation-requested-supported', [3, 4, 5, 6]),
    attr(TAG.RESOLUTION, 'printer-resolution-default', { x: 600, y: 600, units: 'dpi' }),
    attr(TAG.RESOLUTION, 'printer-resolution-supported', [
      { x: 300, y: 300, units: 'dpi' },
      { x: 600, y: 600, units: 'dpi' },
    ]),
    attr(TAG.ENUM, 'print-quality-default', 4),
    attr(TAG.ENUM, 'print-quality-supported', [3, 4, 5]),
    attr(TAG.BOOLEAN, 'page-ranges-supported', true),
    attr(K, 'multiple-document-handling-default', 'separate-documents-collated-copies'),
    attr(K, 'multiple-document-handling-supported', [
      'separate-documents-collated-copies',
      'separate-documents-uncollated-copies',
    ]),
    attr(K, 'media-default', 'iso_a4_210x297mm'),
    attr(K, 'media-ready', ['iso_a4_210x297mm', 'na_letter_8.5x11in']),
    attr(K, 'media-supported', [
      ...MEDIA.map((m) => m[0]),
      'custom_min_76.2x127mm',
      'custom_max_215.9x355.6mm',
    ]),
    attr(TAG.BEGIN_COLLECTION, 'media-size-supported', [
      ...MEDIA.map(([, x, y]) => mediaSize(x, y).values[0] as IppCollection),
      mediaSize(CUSTOM_X, CUSTOM_Y).values[0] as IppCollection,
    ]),
    attr(TAG.BEGIN_COLLECTION, 'media-col-default', mediaCol(mediaSize(21000, 29700), 'auto')),
    attr(TAG.BEGIN_COLLECTION, 'media-col-ready', [
      mediaCol(mediaSize(21000, 29700), 'tray-1'),
      mediaCol(mediaSize(21590, 27940), 'tray-2'),
    ]),
    attr(TAG.BEGIN_COLLECTION, 'media-col-database', [
      ...MEDIA.map(([, x, y]) => mediaCol(mediaSize(x, y))),
      mediaCol(mediaSize(CUSTOM_X, CUSTOM_Y)),
    ]),
    attr(K, 'media-col-supported', [
      'media-size',
      'media-source',
      'media-type',
      'media-top-margin',
      'media-bottom-margin',
      'media-left-margin',
      'media-right-margin',
    ]),
    attr(K, 'media-source-default', 'auto'),
    attr(K, 'media-source-supported', ['auto', 'tray-1', 'tray-2', 'manual']),
    attr(K, 'media-type-supported', ['stationery', 'photographic']),
    attr(TAG.INTEGER, 'media-top-margin-supported', 423),
    attr(TAG.INTEGER, 'media-bottom-margin-supported', 423),
    attr(TAG.INTEGER, 'media-left-margin-supported', 423),
    attr(TAG.INTEGER, 'media-right-margin-supported', 423),
  ];
}

const JOB_TEMPLATE = /-(default|supported|ready)$|^media-col-database$/;

/** Filters by requested-attributes (absent or 'all': everything; groups and names honoured). */
export function filterRequested(all: IppAttribute[], requested: string[] | undefined): IppAttribute[] {
  if (!requested || requested.length === 0 || requested.includes('all')) return all;
  const wanted = new Set(requested);
  return all.filter((a) => {
    if (wanted.has(a.name)) return true;
    if (a.name === 'media-col-database') return false;
    if (wanted.has('job-template') && JOB_TEMPLATE.test(a.name)) return true;
    return wanted.has('printer-description') && !JOB_TEMPLATE.test(a.name);
  });
}
