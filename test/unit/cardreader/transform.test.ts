import { describe, expect, it } from 'vitest';
import { applyTransforms, parseTransformChain, probeConversions } from '../../../src/cardreader/transform.js';

describe('card-number conversion chain', () => {
  it.each([
    [['hex2dec'], '04A1B2C3', '77705923'],
    [['hex2dec'], '00FFFFFFFFFFFFFFFF', '18446744073709551615'],
    [['dec2hex'], '77705923', '4A1B2C3'],
    [['reverse-bytes'], 'A1B2C3D4', 'D4C3B2A1'],
    [['reverse-bytes'], 'ABC', 'BC0A'],
    [['reverse-bytes', 'hex2dec'], 'C3B2A104', '77705923'],
    [['strip-leading-zeros'], '000123', '123'],
    [['strip-leading-zeros'], '0000', '0'],
    [['ascii-decode'], '3132333435', '12345'],
    [['ascii-encode'], 'AB', '4142'],
    [['strip-facility:3'], '12345678', '45678'],
    [['keep-low-bits:16', 'hex2dec'], '7B3039', '12345'],
    [['wiegand26'], '0F67073', '14393'], // facility 123, card 14393, parity bits set
    [['regex:^..(.*)$'], 'XX1234', '1234'],
    [['regex:\\d+'], 'ID=5566;', '5566'],
    [['pad:8'], '1234', '00001234'],
    [['lower', 'upper'], 'aBc', 'ABC'],
    [['trim'], ' 12 ', '12'],
    [[], '  04a1  ', '04a1'],
  ])('%j turns %s into %s', (chain, raw, expected) => {
    expect(applyTransforms(parseTransformChain(chain), raw)).toBe(expected);
  });

  it.each([
    [['bogus'], 'transforms[0]: bogus: unknown conversion'],
    [['hex2dec', 'pad:x'], 'transforms[1]: pad:x: needs a whole-number argument'],
    [['regex:('], 'transforms[0]: regex:(: is not a valid regular expression'],
    [['regex:'], 'needs a pattern'],
  ])('refuses chain %j', (chain, message) => {
    expect(() => parseTransformChain(chain)).toThrow(message);
  });

  it.each([
    [['hex2dec'], 'XYZ', 'hex2dec: input "XYZ" is not hexadecimal'],
    [['dec2hex'], '12AB', 'dec2hex: input "12AB" is not decimal'],
    [['regex:^9'], '123', 'pattern does not match'],
    [['wiegand26'], 'FFFFFFFF', 'more than 26 bits'],
    [['strip-facility:4'], '123', 'not longer than 4'],
    [['ascii-decode'], '04A1', 'not printable ASCII'],
  ])('explains why %j cannot convert %s', (chain, raw, message) => {
    expect(() => applyTransforms(parseTransformChain(chain), raw)).toThrow(message);
  });

  it('probes every conversion of one swipe side by side', () => {
    const rows = probeConversions('04A1B2C3', [['regex:^04(.*)$']]);
    expect(rows[0]).toEqual({ chain: 'regex:^04(.*)$', result: 'A1B2C3' });
    expect(rows).toContainEqual({ chain: '(as read)', result: '04A1B2C3' });
    expect(rows).toContainEqual({ chain: 'hex2dec', result: '77705923' });
    expect(rows).toContainEqual({ chain: 'reverse-bytes | hex2dec', result: String(0xc3b2a104) });
    expect(rows.find((r) => r.chain === 'dec2hex')?.error).toMatch(/not decimal/);
  });
});
