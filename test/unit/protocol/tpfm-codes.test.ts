import { describe, expect, it } from 'vitest';
import {
  decodeErrText,
  encodeErrText,
  isTpfmReturnCode,
  parseReturnCode,
  TPFM_COMMANDS,
  TPFM_HEADERS,
  TpfmReturnCode,
  tpfmErrorText,
  tpfmLanguage,
} from '../../../src/protocol/tpfm-codes.js';

const CODES = Array.from({ length: 14 }, (_, code) => code);

describe('X-FMP-Return codes', () => {
  it('defines exactly the integers 0 to 13', () => {
    expect(CODES.every(isTpfmReturnCode)).toBe(true);
    expect([-1, 14, 1.5, Number.NaN].filter(isTpfmReturnCode)).toEqual([]);
    expect(TpfmReturnCode.Success).toBe(0);
    expect(TpfmReturnCode.UnknownLocalJob).toBe(13);
  });

  it('gives every code its own non-empty text in each language', () => {
    for (const lang of ['en', 'de']) {
      const texts = CODES.map((code) => tpfmErrorText(code, lang));
      for (const text of texts) expect(text, `${lang}: ${texts.join(' | ')}`).toMatch(/\S{3}/);
      expect(new Set(texts).size, lang).toBe(CODES.length);
    }
    for (const code of CODES)
      expect(tpfmErrorText(code, 'de'), `code ${code}`).not.toBe(tpfmErrorText(code, 'en'));
  });

  it('answers success and the local-job codes PrintRelay defines in both languages', () => {
    expect([tpfmErrorText(0), tpfmErrorText(0, 'de')]).toEqual(['Success', 'Erfolgreich']);
    expect(tpfmErrorText(11, 'en')).toBe('Invalid or missing command parameter');
    expect(tpfmErrorText(12, 'de')).toBe('Ungültiger Parameter des lokalen Auftrags');
    expect(tpfmErrorText(13, 'en')).toBe('Unknown or closed local job');
  });

  it('names a code it does not define, negative ones included', () => {
    expect(tpfmErrorText(-1)).toBe('Unknown error code -1');
    expect(tpfmErrorText(14, 'de-CH')).toBe('Unbekannter Fehlercode 14');
  });

  it('reduces X-Lang-ID to a language with texts', () => {
    expect([' DE-at ', 'de', 'fr', 'd', undefined, ''].map(tpfmLanguage)).toEqual([
      'de',
      'de',
      'en',
      'en',
      'en',
      'en',
    ]);
  });
});

describe('parseReturnCode', () => {
  it('reads a whole non-negative integer only, blanks around it allowed', () => {
    expect(['0', ' 7 ', '13\t'].map(parseReturnCode)).toEqual([0, 7, 13]);
    expect(['x12', '12x', '1 2', '-1', '', ' ', '1.0'].map(parseReturnCode)).toEqual(
      Array(7).fill(undefined),
    );
  });
});

describe('error texts in base64', () => {
  it('encodes the UTF-8 bytes of the text', () => {
    expect(encodeErrText('Gerät')).toBe(Buffer.from('Gerät', 'utf8').toString('base64'));
    expect(encodeErrText('')).toBe('');
  });

  it('decodes bytes that are not UTF-8 with replacement characters, keeping the rest', () => {
    expect(decodeErrText(Buffer.from([0x47, 0x72, 0xfc, 0x6e]).toString('base64'))).toBe('Gr\uFFFDn');
  });

  it('decodes a value with blanks around it', () => {
    expect(decodeErrText(` ${encodeErrText('Druckauftrag abgebrochen')}\n`)).toBe('Druckauftrag abgebrochen');
  });
});

describe('commands and headers', () => {
  it('names the headers as sent on the wire', () => {
    expect(Object.values(TPFM_HEADERS)).toEqual([
      'X-Lang-ID',
      'X-FMP-User-Agent',
      'X-FMP-Return',
      'X-FMP-ErrText',
      'X-FMP-OSError',
      'X-FMP-OSErrText',
      'X-FMP-Visible',
      'X-FMP-ProcId',
      'X-FMP-ProgressType',
      'X-FMP-JobId',
    ]);
  });

  it('says which commands need a user and which return codes each can answer', () => {
    expect(
      Object.fromEntries(
        Object.entries(TPFM_COMMANDS).map(([name, { auth, codes }]) => [name, `${auth} ${codes}`]),
      ),
    ).toEqual({
      GetVersion: 'none 1,2',
      GetCapabilities: 'optional 2',
      GetJobList: 'user 1,2,3,4',
      DeleteJob: 'user 1,2,3,5',
      PrintJob: 'user 1,2,3,4,5,6,7,8,10',
      CancelPrintJob: 'user 1,2,3,9',
      SetJobProperties: 'user 1,2,3,5,11',
      CreateLocalJob: 'user 1,2,3,4,12',
      UpdateLocalJob: 'user 1,2,3,12,13',
      PrepareUpload: 'user 1,2,3,11',
    });
  });
});
