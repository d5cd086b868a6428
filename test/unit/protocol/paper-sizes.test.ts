import { describe, expect, it } from 'vitest';
import {
  CUSTOM_PAPER_ID,
  customPwgName,
  desktopPapers,
  paperById,
  paperByPwgName,
  paperBySize,
} from '../../../src/protocol/paper-sizes.js';

describe('paperById', () => {
  it.each([
    [1, 'Letter', 'na_letter_8.5x11in', 2159, 2794],
    [3, 'Tabloid', 'na_ledger_11x17in', 2794, 4318],
    [5, 'Legal', 'na_legal_8.5x14in', 2159, 3556],
    [7, 'Executive', 'na_executive_7.25x10.5in', 1842, 2667],
    [8, 'A3', 'iso_a3_297x420mm', 2970, 4200],
    [9, 'A4', 'iso_a4_210x297mm', 2100, 2970],
    [11, 'A5', 'iso_a5_148x210mm', 1480, 2100],
    [13, 'B5 (JIS)', 'jis_b5_182x257mm', 1820, 2570],
    [20, 'Envelope #10', 'na_number-10_4.125x9.5in', 1048, 2413],
    [27, 'Envelope DL', 'iso_dl_110x220mm', 1100, 2200],
    [28, 'Envelope C5', 'iso_c5_162x229mm', 1620, 2290],
    [70, 'A6', 'iso_a6_105x148mm', 1050, 1480],
    [77, 'A4 Rotated', 'iso_a4_210x297mm', 2970, 2100],
  ])('id %i is %s (%s, %i x %i)', (id, name, pwg, width, length) => {
    expect(paperById(id)).toMatchObject({ id, name, pwg, width, length });
  });

  it('256 is the custom size', () => {
    expect(paperById(CUSTOM_PAPER_ID)?.name).toBe('Custom');
  });

  it('unknown ids give undefined', () => {
    expect(paperById(999)).toBeUndefined();
  });

  it('ids are unique in the table', () => {
    expect(new Set(desktopPapers.map((p) => p.id)).size).toBe(desktopPapers.length);
  });
});

describe('paperByPwgName', () => {
  it.each([
    ['na_letter_8.5x11in', 1],
    ['NA_LETTER_8.5X11IN', 1],
    ['na_ledger_11x17in', 3],
    ['iso_a4_210x297mm', 9],
    ['jis_b4_257x364mm', 12],
    ['iso_c4_229x324mm', 30],
    ['na_monarch_3.875x7.5in', 37],
    ['jpn_hagaki_100x148mm', 43],
    ['na_index-4x6_4x6in', CUSTOM_PAPER_ID],
  ])('%s -> id %i', (pwg, id) => {
    expect(paperByPwgName(pwg)?.id).toBe(id);
  });

  it('unknown names give undefined', () => {
    expect(paperByPwgName('om_unknown_1x1mm')).toBeUndefined();
  });
});

describe('paperBySize', () => {
  it.each([
    [2100, 2970, 0, 9],
    [2159, 2794, 0, 1],
    [2158, 2795, 5, 1],
    [2970, 2100, 0, 77],
    [1050, 1480, 2, 70],
    [1016, 1524, 2, CUSTOM_PAPER_ID],
  ])('%i x %i within %i -> id %i', (w, l, tolerance, id) => {
    expect(paperBySize(w, l, tolerance)?.id).toBe(id);
  });

  it('a size outside the tolerance has no paper', () => {
    expect(paperBySize(2110, 2970, 5)).toBeUndefined();
  });
});

describe('customPwgName', () => {
  it('writes millimetres as PWG does', () => {
    expect(customPwgName(2355, 3223)).toBe('custom_235.5x322.3mm');
  });
});
