import { describe, expect, it } from 'vitest';
import { parseRange } from '../../../../src/emulator/http/file-range.js';

describe('parseRange (file of 1000 bytes)', () => {
  it.each<[string | undefined, ReturnType<typeof parseRange>]>([
    [undefined, undefined],
    ['bytes=0-99', { start: 0, end: 99 }],
    ['bytes=500-', { start: 500, end: 999 }],
    ['bytes=-100', { start: 900, end: 999 }],
    ['bytes=-5000', { start: 0, end: 999 }],
    ['bytes=900-5000', { start: 900, end: 999 }],
    ['bytes=999-999', { start: 999, end: 999 }],
    ['bytes=1000-', 'unsatisfiable'],
    ['bytes=1000-1001', 'unsatisfiable'],
    ['bytes=-0', 'unsatisfiable'],
    ['bytes=50-10', 'unsatisfiable'],
    ['bytes=0-1,5-6', undefined],
    ['items=0-1', undefined],
    ['bytes=-', undefined],
    ['bytes=x-1', undefined],
  ])('%s -> %o', (header, expected) => {
    expect(parseRange(header, 1000)).toEqual(expected);
  });

  it('an empty file satisfies no range', () => {
    expect(parseRange('bytes=0-', 0)).toBe('unsatisfiable');
    expect(parseRange('bytes=-1', 0)).toBe('unsatisfiable');
  });
});
