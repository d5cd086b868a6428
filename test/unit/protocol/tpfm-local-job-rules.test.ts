/**
 * CreateLocalJob / UpdateLocalJob parameters field by field: each field's kind and bounds, the
 * blanks around values, Status words, the colour-count rules, the parameters each command
 * refuses, and the query form a client sends. Every broken rule is reported at once.
 */
import { describe, expect, it } from 'vitest';
import {
  localJobQuery,
  parseCreateLocalJob,
  parseUpdateLocalJob,
} from '../../../src/protocol/tpfm-local-job.js';
import { refusals } from '../../support/validation-refusals.js';

const CREATE = { Printer: 'Demo Printer', Type: 'Copy' };

const INT_MAX = 2_147_483_647;
/** [field, lowest, highest] of the integer fields. */
const INTS: [string, number, number][] = [
  ['Copies', 1, 9999],
  ['PageCoverage', 0, 100],
  ['PaperId', 1, 32767],
  ['PrintedColorPages', 0, INT_MAX],
  ['PrintedPages', 0, INT_MAX],
  ['PrintedSheets', 0, INT_MAX],
  ['TotalPrintedColorPages', 0, INT_MAX],
  ['TotalPrintedPages', 0, INT_MAX],
  ['TotalPrintedSheets', 0, INT_MAX],
];

describe('local-job parameters', () => {
  it.each(INTS)('reads %s from %d to %d, blanks aside', (field, min, max) => {
    expect(parseCreateLocalJob({ ...CREATE, [field]: ` ${min} ` })).toMatchObject({ [field]: min });
    expect(parseUpdateLocalJob({ JobId: 'j', [field]: String(max) })).toMatchObject({ [field]: max });
    const rule = `${field}: must be an integer from ${min} to ${max}`;
    for (const bad of [String(min - 1), String(max + 1), 'x1', '1x', '1.0', '']) {
      expect(
        refusals(() => parseCreateLocalJob({ ...CREATE, [field]: bad })),
        bad,
      ).toEqual([rule]);
    }
  });

  it.each(['Color', 'Duplex'])('reads the flag %s as 0 or 1', (field) => {
    expect(parseCreateLocalJob({ ...CREATE, [field]: ' 0 ' })).toMatchObject({ [field]: 0 });
    expect(parseCreateLocalJob({ ...CREATE, [field]: '1' })).toMatchObject({ [field]: 1 });
    for (const bad of ['2', 'true', '', '01']) {
      expect(
        refusals(() => parseCreateLocalJob({ ...CREATE, [field]: bad })),
        bad,
      ).toEqual([`${field}: must be 0 or 1`]);
    }
  });

  it.each([
    ['Filename', 255],
    ['PaperName', 64],
  ] as const)('reads the text %s of 1 to %d characters, trimmed', (field, max) => {
    expect(parseCreateLocalJob({ ...CREATE, [field]: ` ${'a'.repeat(max)} ` })).toMatchObject({
      [field]: 'a'.repeat(max),
    });
    expect(parseCreateLocalJob({ ...CREATE, [field]: 'x' })).toMatchObject({ [field]: 'x' });
    for (const bad of ['', '   ', 'a'.repeat(max + 1)]) {
      expect(refusals(() => parseCreateLocalJob({ ...CREATE, [field]: bad }))).toEqual([
        `${field}: must be 1 to ${max} characters`,
      ]);
    }
  });

  it('reads Status as one of its three words in any case, and nothing else', () => {
    for (const [raw, status] of [
      ['pending', 'Pending'],
      [' SUCCEEDED ', 'Succeeded'],
      ['Failed', 'Failed'],
    ]) {
      expect(parseUpdateLocalJob({ JobId: 'j', Status: raw! })).toMatchObject({ Status: status });
    }
    for (const bad of ['Done', '', '1']) {
      expect(refusals(() => parseUpdateLocalJob({ JobId: 'j', Status: bad }))).toEqual([
        'Status: must be Pending, Succeeded or Failed',
      ]);
    }
  });

  it('keeps colour pages within pages, for the job and for its totals, each only when both are given', () => {
    expect(parseCreateLocalJob({ ...CREATE, PrintedColorPages: '5', PrintedPages: '5' })).toMatchObject({
      PrintedColorPages: 5,
    });
    expect(parseCreateLocalJob({ ...CREATE, PrintedColorPages: '5' })).toMatchObject({
      PrintedColorPages: 5,
    });
    expect(parseCreateLocalJob({ ...CREATE, PrintedPages: '5' })).toMatchObject({ PrintedPages: 5 });
    expect(
      refusals(() => parseCreateLocalJob({ ...CREATE, PrintedColorPages: '6', PrintedPages: '5' })),
    ).toEqual(['PrintedColorPages: must be at most PrintedPages']);
    expect(
      parseUpdateLocalJob({ JobId: 'j', TotalPrintedColorPages: '5', TotalPrintedPages: '5' }),
    ).toMatchObject({ TotalPrintedColorPages: 5 });
    expect(parseUpdateLocalJob({ JobId: 'j', TotalPrintedColorPages: '9' })).toMatchObject({
      TotalPrintedColorPages: 9,
    });
    expect(parseUpdateLocalJob({ JobId: 'j', TotalPrintedPages: '1' })).toMatchObject({
      TotalPrintedPages: 1,
    });
    expect(
      refusals(() =>
        parseUpdateLocalJob({ JobId: 'j', TotalPrintedColorPages: '6', TotalPrintedPages: '5' }),
      ),
    ).toEqual(['TotalPrintedColorPages: must be at most TotalPrintedPages']);
  });

  it('needs Printer and Type Copy on create, trimmed, and refuses JobId there', () => {
    expect(parseCreateLocalJob({ Printer: ' Demo Printer ', Type: ' copy ' })).toEqual(CREATE);
    expect(refusals(() => parseCreateLocalJob({}))).toEqual(['Printer: is required', 'Type: is required']);
    expect(refusals(() => parseCreateLocalJob({ Printer: '  ', Type: '  ' }))).toEqual([
      'Printer: is required',
      'Type: is required',
    ]);
    expect(refusals(() => parseCreateLocalJob({ ...CREATE, Type: 'Scan', JobId: 'j' }))).toEqual([
      'Type: must be Copy',
      'JobId: is not a parameter of CreateLocalJob',
    ]);
  });

  it('needs JobId on update, trimmed, and refuses Printer and Type there', () => {
    expect(parseUpdateLocalJob({ JobId: ' j-1 ' })).toEqual({ JobId: 'j-1' });
    expect(refusals(() => parseUpdateLocalJob({ JobId: ' ', Printer: 'p', Type: 'Copy' }))).toEqual([
      'JobId: is required',
      'Printer: is not a parameter of UpdateLocalJob',
      'Type: is not a parameter of UpdateLocalJob',
    ]);
  });

  it('leaves out fields not given and ignores unknown parameters', () => {
    expect(parseUpdateLocalJob({ JobId: 'j', Future: 'x' })).toEqual({ JobId: 'j' });
  });

  it('writes the query form without the undefined values', () => {
    expect(localJobQuery({ JobId: 'j', Copies: 2, Color: 0, Filename: undefined })).toEqual({
      JobId: 'j',
      Copies: '2',
      Color: '0',
    });
  });
});
