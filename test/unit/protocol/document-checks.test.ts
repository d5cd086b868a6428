import { describe, expect, it } from 'vitest';
import {
  documentTypeMismatch,
  pageRangesMiss,
  pagesCountable,
} from '../../../src/protocol/document-checks.js';

const bytes = (...values: number[]) => Uint8Array.from(values);
const text = (value: string) => Uint8Array.from(Buffer.from(value, 'latin1'));

describe('documentTypeMismatch', () => {
  it.each([
    ['application/pdf', text('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n')],
    ['application/pdf', text(`${' '.repeat(500)}%PDF-1.4\n`)],
    ['application/pdf; charset=binary', text('%PDF-2.0')],
    ['application/postscript', text('%!PS-Adobe-3.0\n')],
    ['image/jpeg', bytes(0xff, 0xd8, 0xff, 0xe0, 0, 0x10)],
    ['image/png', bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0)],
    ['image/gif', text('GIF89a')],
    ['image/bmp', text('BM6\0')],
    ['image/tiff', bytes(0x49, 0x49, 0x2a, 0x00, 8)],
    ['image/tiff', bytes(0x4d, 0x4d, 0x00, 0x2a, 8)],
    ['image/pwg-raster', text('RaS2PwgRaster')],
    ['image/urf', text('UNIRAST\0')],
    ['application/rtf', text('{\\rtf1\\ansi')],
    ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', text('PK\x03\x04rest')],
    ['application/vnd.ms-excel.sheet.macroEnabled.12', text('PK\x03\x04rest')],
    ['application/vnd.oasis.opendocument.text', text('PK\x03\x04mimetype')],
    ['application/vnd.ms-xpsdocument', text('PK\x03\x04')],
    // Types without a fixed signature are not judged.
    ['text/plain', text('\x00\x01 anything')],
    ['text/csv', bytes()],
    ['application/msword', text('{\\rtf1 renamed to .doc')],
    ['application/octet-stream', bytes(1, 2, 3)],
  ])('takes %s that starts as its type says', (type, head) => {
    expect(documentTypeMismatch(type, head)).toBeUndefined();
  });

  it.each([
    [
      'application/pdf',
      bytes(0x13, 0x99, 0x42, 0x00),
      'the document is not a PDF (application/pdf): it does not start with %PDF- (in its first 1024 bytes)',
    ],
    ['application/pdf', text(`${' '.repeat(1024)}%PDF-1.4`), 'the document is not a PDF (application/pdf)'],
    ['application/pdf', bytes(), 'the document is empty, not a PDF (application/pdf)'],
    ['image/png', text('%PDF-1.4'), 'the document is not a PNG image (image/png)'],
    [
      'image/jpeg',
      bytes(0xff, 0xd8),
      'the document is not a JPEG image (image/jpeg): it does not start with the bytes FF D8 FF',
    ],
    ['image/tiff', bytes(0x49, 0x49, 0x00, 0x2a), 'the document is not a TIFF image'],
    ['application/postscript', text(' %!PS'), 'the document is not PostScript'],
    [
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      text('not a zip'),
      'the document is not a ZIP-packaged document',
    ],
  ])('refuses %s whose first bytes are another thing', (type, head, rule) => {
    expect(documentTypeMismatch(type, head)).toContain(rule);
  });
});

describe('pageRangesMiss', () => {
  it.each([
    [[{ from: 1, to: 1 }], 1],
    [[{ from: 2, to: 9 }], 2],
    [
      [
        { from: 5, to: 9 },
        { from: 1, to: 1 },
      ],
      2,
    ],
    [[], 3],
  ])('lets %j on a %i-page document print (at least one page selected)', (ranges, pages) => {
    expect(pageRangesMiss(ranges, pages)).toBeUndefined();
  });

  it.each([
    [[{ from: 5, to: 9 }], 2, 'pageranges 5-9 selects no page of the document, which has 2 pages'],
    [
      [
        { from: 3, to: 3 },
        { from: 7, to: 8 },
      ],
      2,
      'pageranges 3,7-8 selects no page of the document, which has 2 pages',
    ],
    [[{ from: 2, to: 2 }], 1, 'pageranges 2 selects no page of the document, which has 1 page'],
  ])('refuses %j on a %i-page document, naming pageranges and the count', (ranges, pages, rule) => {
    expect(pageRangesMiss(ranges, pages)).toBe(rule);
  });
});

describe('pagesCountable', () => {
  it('counts the pages of a PDF only', () => {
    expect(pagesCountable('application/pdf')).toBe(true);
    expect(pagesCountable('Application/PDF; x=1')).toBe(true);
    expect(pagesCountable('text/plain')).toBe(false);
    expect(pagesCountable('image/pwg-raster')).toBe(false);
  });
});
