/** The IPP codec: round trips of every value type, and typed errors for short or bad bytes. */
import { describe, expect, it } from 'vitest';
import { attr, attributesToRecord } from '../../../../src/printing/ipp/ipp-attributes.js';
import {
  decodeMessage,
  encodeAttributes,
  encodeMessage,
  encodeRequest,
  IppDecodeError,
  IppIncompleteError,
  type IppMessage,
} from '../../../../src/printing/ipp/ipp-codec.js';
import { TAG } from '../../../../src/printing/ipp/ipp-constants.js';
import { errorForStatus } from '../../../../src/printing/ipp/ipp-errors.js';
import { PdfPageCounter } from '../../../../src/printing/virtual/pdf-page-counter.js';

const message: IppMessage = {
  version: { major: 2, minor: 0 },
  code: 0x0002,
  requestId: 42,
  groups: [
    {
      tag: TAG.OPERATION,
      attributes: [
        attr(TAG.CHARSET, 'attributes-charset', 'utf-8'),
        attr(TAG.NAME, 'job-name', 'Überweisung.pdf'),
        attr(TAG.BOOLEAN, 'ipp-attribute-fidelity', false),
      ],
    },
    {
      tag: TAG.JOB,
      attributes: [
        attr(TAG.INTEGER, 'copies', 1200),
        attr(TAG.ENUM, 'orientation-requested', 4),
        attr(TAG.RESOLUTION, 'printer-resolution', { x: 1200, y: 600, units: 'dpi' }),
        attr(TAG.RANGE_OF_INTEGER, 'page-ranges', [
          { lower: 1, upper: 3 },
          { lower: 7, upper: 7 },
        ]),
        attr(TAG.DATE_TIME, 'job-hold-until-time', new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 600))),
        attr(TAG.BEGIN_COLLECTION, 'media-col', {
          members: [
            attr(TAG.BEGIN_COLLECTION, 'media-size', {
              members: [attr(TAG.INTEGER, 'x-dimension', 21000), attr(TAG.INTEGER, 'y-dimension', 29700)],
            }),
            attr(TAG.KEYWORD, 'media-source', 'tray-1'),
          ],
        }),
        attr(TAG.NO_VALUE, 'job-uri', { outOfBand: TAG.NO_VALUE }),
      ],
    },
  ],
};

describe('ipp codec', () => {
  it('round-trips every value type', () => {
    const bytes = encodeMessage(message);
    const decoded = decodeMessage(Buffer.concat([bytes, Buffer.from('%PDF-1.7')]));
    expect(decoded.bodyOffset).toBe(bytes.length);
    expect(decoded.groups).toEqual(message.groups);
    expect(attributesToRecord(decoded.groups[1]!.attributes)).toMatchObject({
      'media-col': { 'media-size': { 'x-dimension': 21000, 'y-dimension': 29700 }, 'media-source': 'tray-1' },
      'job-uri': null,
      'job-hold-until-time': '2026-01-02T03:04:05.600Z',
    });
  });

  it('writes the RFC 8010 bytes: head, tags, 2-byte lengths, values, end tag', () => {
    const bytes = encodeMessage({
      version: { major: 2, minor: 0 },
      code: 0x0009,
      requestId: 7,
      groups: [
        {
          tag: TAG.OPERATION,
          attributes: [attr(TAG.INTEGER, 'job-id', 258), attr(TAG.KEYWORD, 'a', ['x', 'é'])],
        },
      ],
    });
    expect(bytes.toString('hex')).toBe(
      [
        '0200',
        '0009',
        '00000007',
        '01',
        '21',
        '0006',
        Buffer.from('job-id').toString('hex'),
        '0004',
        '00000102',
      ]
        .concat(['44', '0001', '61', '0001', '78', '44', '0000', '0002', 'c3a9', '03'])
        .join(''),
    );
  });

  it('encodes a request with its operation start encoded beforehand exactly as the whole message', () => {
    const [operation, job] = message.groups as [IppMessage['groups'][0], IppMessage['groups'][0]];
    const operationStart = encodeAttributes(operation.attributes.slice(0, 1));
    const parts = {
      version: message.version,
      code: message.code,
      requestId: message.requestId,
      operationStart,
    };
    const request = encodeRequest({
      ...parts,
      operation: operation.attributes.slice(1),
      job: job.attributes,
    });
    expect(request.equals(encodeMessage(message))).toBe(true);
    const noJob = encodeRequest({ ...parts, operation: operation.attributes.slice(1), job: [] });
    expect(noJob.equals(encodeMessage({ ...message, groups: [operation] }))).toBe(true);
  });

  it('grows past its first buffer and refuses a value longer than 65535 bytes', () => {
    const long = 'ü'.repeat(20_000);
    const many = Array.from({ length: 300 }, (_, i) => attr(TAG.KEYWORD, `k${i}`, long.slice(0, i)));
    const big: IppMessage = {
      ...message,
      groups: [{ tag: TAG.JOB, attributes: [attr(TAG.TEXT, 't', long), ...many] }],
    };
    expect(decodeMessage(encodeMessage(big)).groups).toEqual(big.groups);
    const tooLong = {
      ...message,
      groups: [{ tag: TAG.JOB, attributes: [attr(TAG.TEXT, 't', 'ü'.repeat(32_768))] }],
    };
    expect(() => encodeMessage(tooLong)).toThrow(RangeError);
  });

  it('reports every truncation point as IppIncompleteError', () => {
    const bytes = encodeMessage(message);
    for (let length = 0; length < bytes.length; length++) {
      expect(() => decodeMessage(bytes.subarray(0, length))).toThrow(IppIncompleteError);
    }
  });

  it.each([
    ['a boolean of length 2', Buffer.from([1, 1, 0, 0, 0, 0, 0, 1, 1, 0x22, 0, 1, 0x61, 0, 2, 0, 1, 3])],
    ['a value before any group', Buffer.from([1, 1, 0, 0, 0, 0, 0, 1, 0x21, 0, 0, 0, 4, 0, 0, 0, 1, 3])],
    ['an integer of length 2', Buffer.from([1, 1, 0, 0, 0, 0, 0, 1, 1, 0x21, 0, 1, 0x61, 0, 2, 0, 1, 3])],
    ['an additional value first', Buffer.from([1, 1, 0, 0, 0, 0, 0, 1, 1, 0x44, 0, 0, 0, 1, 0x61, 3])],
  ])('rejects %s with IppDecodeError', (_name, bytes) => {
    expect(() => decodeMessage(bytes)).toThrow(IppDecodeError);
  });

  it.each([
    [0x0000, undefined],
    [0x0001, undefined],
    [0x0507, 'printer_busy'],
    [0x0502, 'printer_busy'],
    [0x0506, 'printer_busy'],
    [0x040a, 'printer_rejected'],
    [0x040b, 'printer_rejected'],
    [0x0501, 'printer_rejected'],
    [0x0500, 'printer_error'],
  ])('maps status 0x%s', (status, code) => {
    expect((errorForStatus(status, 'Print-Job') as { code?: string } | undefined)?.code).toBe(code);
  });
});

describe('PdfPageCounter', () => {
  const pdf = Buffer.from(
    '%PDF-1.4\n1 0 obj <</Type /Catalog /Pages 2 0 R>> endobj\n2 0 obj <</Type /Pages /Kids [3 0 R 4 0 R 5 0 R] /Count 3>> endobj\n' +
      '3 0 obj <</Type /Page /Parent 2 0 R>> endobj\n4 0 obj <</Type/Page/Parent 2 0 R>> endobj\n' +
      '5 0 obj <</Parent 2 0 R /Type /Page>> endobj\n%%EOF',
    'latin1',
  );

  it.each([1, 2, 3, 5, 7, 11, 64, pdf.length])('counts 3 pages in chunks of %i bytes', (size) => {
    const counter = new PdfPageCounter();
    for (let i = 0; i < pdf.length; i += size) counter.push(pdf.subarray(i, i + size));
    expect(counter.finish()).toBe(3);
  });
});

describe('PdfPageCounter on pdf-lib output', () => {
  it.each([true, false])(
    'counts pages with useObjectStreams=%s in any chunking',
    async (useObjectStreams) => {
      const { PDFDocument } = await import('pdf-lib');
      const doc = await PDFDocument.create();
      for (let i = 0; i < 120; i++) doc.addPage().drawText(`page ${i}`, { x: 20, y: 20 });
      const bytes = Buffer.from(await doc.save({ useObjectStreams }));
      for (const size of [1, 7, 1000, 65536, bytes.length]) {
        const counter = new PdfPageCounter();
        for (let i = 0; i < bytes.length; i += size) counter.push(bytes.subarray(i, i + size));
        expect(counter.finish()).toBe(120);
      }
    },
  );
});
