/**
 * Boundaries and anchors of the Print request rules: each case here failed to tell a mutation of
 * print-request.ts from the original (npm run mutate, docs/testing.md).
 */
import { describe, expect, it } from 'vitest';
import { ValidationErrors } from '../../../src/lib/errors.js';
import {
  normalizePageRanges,
  parsePageRanges,
  parsePrintRequest,
  type PrintRequest,
} from '../../../src/protocol/print-request.js';

const PRINTER = '3f2b8c1e-9d4a-4e5b-8f6c-1a2b3c4d5e6f';
const base = { fileid: 'abc123', type: 'pdf', printerid: PRINTER };

/** `field: rule` of every error, or the request when it passes. */
function outcome(body: Record<string, unknown>): string[] | PrintRequest {
  try {
    return parsePrintRequest(body);
  } catch (error) {
    if (error instanceof ValidationErrors) return error.errors.map((e) => `${e.field}: ${e.rule}`);
    throw error;
  }
}

const ticketOf = (body: Record<string, unknown>) => (parsePrintRequest(body) as PrintRequest).ticket;

describe('printer id', () => {
  it.each([`x${PRINTER}`, `${PRINTER}0`, `{${PRINTER}}`])('refuses junk around a valid id: %s', (id) => {
    expect(outcome({ ...base, printerid: id })).toEqual(['printerid: must be a UUID']);
  });
});

describe('resolution', () => {
  it.each([
    ['50', { dpi: 50 }],
    ['9600', { dpi: 9600 }],
    ['1200 x 600 DPI', { dpi: 1200 }],
    ['q'.repeat(32), { quality: 'q'.repeat(32) }],
    ['High_Quality-2 x', { quality: 'High_Quality-2 x' }],
  ])('takes %s', (resolution, expected) => {
    expect(ticketOf({ ...base, resolution }).resolution).toEqual(expected);
  });

  it.each(['49', '9601'])('refuses %s dots per inch', (resolution) => {
    expect(outcome({ ...base, resolution })).toEqual([
      'resolution: dots per inch must be between 50 and 9600',
    ]);
  });

  it.each(['!600', '600 !', '600x', '!Auto', 'Auto!', '2-sided'])('refuses %s', (resolution) => {
    expect(outcome({ ...base, resolution })).toEqual(['resolution: must be dots per inch or a quality word']);
  });

  it('refuses a text longer than 32 characters', () => {
    expect(outcome({ ...base, resolution: 'q'.repeat(33) })).toEqual([
      'resolution: must be at most 32 characters',
    ]);
  });
});

describe('locale', () => {
  it.each(['!de-DE', 'de-DE!', 'd', 'de-x'])('refuses %s', (locale) => {
    expect(outcome({ ...base, locale })).toEqual(['locale: must be a language tag such as en-US']);
  });

  it('takes a three-letter language with several subtags', () => {
    expect(ticketOf({ ...base, locale: 'gsw_Latn_CH' }).locale).toBe('gsw-Latn-CH');
  });
});

describe('page ranges', () => {
  it.each(['3-0', '0', '0-0'])('refuses a page 0 anywhere: %s', (text) => {
    expect(parsePageRanges(text)).toEqual({ rule: 'pages must be positive' });
  });

  it.each(['1-2-3', 'a1', '1a', '-1'])('refuses %s', (text) => {
    expect(parsePageRanges(text)).toEqual({ rule: 'must be pages or ranges like 1-3,5' });
  });
});

describe('URL-form orientation (OrientationsSupported)', () => {
  it.each([
    ['Portrait', 'portrait'],
    ['1', 'portrait'],
    ['LANDSCAPE', 'landscape'],
    ['2', 'landscape'],
  ])('%s is %s', (value, expected) => {
    expect(ticketOf({ ...base, OrientationsSupported: value }).orientation).toBe(expected);
  });

  it('lets a numeric orientation win over the URL form', () => {
    expect(ticketOf({ ...base, orientation: 1, OrientationsSupported: 'landscape' }).orientation).toBe(
      'portrait',
    );
  });

  it('refuses a number other than 1 or 2', () => {
    expect(outcome({ ...base, OrientationsSupported: '3' })).toEqual([
      'OrientationsSupported: must be portrait or landscape',
    ]);
  });
});

describe('lengths', () => {
  it('takes an alias of 255 characters', () => {
    expect((parsePrintRequest({ ...base, alias: 'a'.repeat(255) }) as PrintRequest).alias).toBe(
      'a'.repeat(255),
    );
  });
});

describe('whole integers only', () => {
  it.each([[[2]], [true], ['+2'], ['2.'], ['1e1']])('refuses copies %j', (copies) => {
    expect(outcome({ ...base, copies })).toEqual(['copies: must be an integer']);
  });
});

describe('trimming', () => {
  it('trims text values and booleans written with blanks', () => {
    const request = parsePrintRequest({ ...base, alias: '  Report  ', color: ' TRUE ' }) as PrintRequest;
    expect([request.alias, request.ticket.color]).toEqual(['Report', true]);
  });
});

describe('the body and its properties', () => {
  it('ignores a null properties member', () => {
    expect(ticketOf({ ...base, properties: null })).toStrictEqual({ copies: 1 });
  });

  it('adds no option the body does not give', () => {
    expect(ticketOf(base)).toStrictEqual({ copies: 1 });
  });
});

describe('one error per broken field', () => {
  it.each([
    ['fileid', { type: 'pdf', printerid: PRINTER, fileid: { a: 1 } }, 'fileid: must be a string'],
    ['fileurl', { type: 'pdf', printerid: PRINTER, fileurl: { a: 1 } }, 'fileurl: must be a string'],
    ['type', { ...base, type: ['pdf'] }, 'type: must be a string'],
    ['printerid', { ...base, printerid: {} }, 'printerid: must be a string'],
  ])('%s of the wrong kind', (_field, body, error) => {
    expect(outcome(body)).toEqual([error]);
  });

  it('refuses a type with a dot inside', () => {
    expect(outcome({ ...base, type: 'pd.f' })).toEqual(['type: must be one of the FILEEXT extensions']);
  });
});

describe('alias from the fileurl', () => {
  it.each([
    ['http://files.example/dir/report.pdf/', 'report.pdf'],
    ['http://files.example/a/100%zz.pdf', '100%zz.pdf'],
  ])('%s -> %s', (fileurl, alias) => {
    const { fileid: _, ...rest } = base;
    expect((parsePrintRequest({ ...rest, fileurl }) as PrintRequest).alias).toBe(alias);
  });
});

describe('duplex', () => {
  it('takes duplexmode 1 with duplex false', () => {
    expect(ticketOf({ ...base, duplex: false, duplexmode: 1 }).duplex).toBe('simplex');
  });
});

describe('normalizePageRanges', () => {
  it('merges ranges that end on the same page whatever their order', () => {
    const ranges = parsePageRanges('5-9,1-9');
    expect(Array.isArray(ranges) && normalizePageRanges(ranges)).toEqual([{ from: 1, to: 9 }]);
  });
});
