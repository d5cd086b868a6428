import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stableHash, stableJson } from '../../../../src/agent/printer-sync/upload-diff.js';

/** The text stableJson has always produced (stored upload hashes depend on it), written plainly. */
function referenceStableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(referenceStableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${referenceStableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

describe('stableJson', () => {
  it('sorts keys at every level, leaves out undefined members and keeps array order', () => {
    const value = {
      b: [3, { z: 1, a: undefined, m: 'x"y' }, null],
      a: { é: true, e: -0, Z: Number.NaN },
      c: undefined,
    };
    expect(stableJson(value)).toBe('{"a":{"Z":null,"e":0,"é":true},"b":[3,{"m":"x\\"y","z":1},null]}');
    expect(stableHash(value)).toBe(
      stableHash({ a: { e: 0, é: true, Z: null }, b: [3, { m: 'x"y', z: 1 }, null] }),
    );
  });

  it('writes a sparse array hole as empty and an undefined element as null, as before', () => {
    // biome-ignore lint/suspicious/noSparseArray: the hole is the case under test
    expect(stableJson([1, , undefined, 2])).toBe('[1,,null,2]');
  });

  it('gives the same text as the plain recursive form for any JSON-like value', () => {
    fc.assert(
      fc.property(fc.anything({ withSparseArray: true, withNullPrototype: true }), (value) => {
        expect(stableJson(value)).toBe(referenceStableJson(value));
      }),
      { numRuns: 500 },
    );
  });
});
