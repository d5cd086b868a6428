import { describe, expect, it } from 'vitest';
import {
  canonicalQuery,
  failureHeaders,
  flagParam,
  intParam,
  osFailure,
  resolveCommand,
  TpfmFailure,
} from '../../../../../src/emulator/pull/tpfm/tpfm-wire.js';
import { formatOfExtension } from '../../../../../src/emulator/pull/held-jobs/pull-queue.js';
import { parseBasic } from '../../../../../src/emulator/pull/tpfm/tpfm-auth.js';
import { decodeErrText } from '../../../../../src/protocol/tpfm-codes.js';
import { LOCAL_JOB_FIELDS } from '../../../../../src/protocol/tpfm-local-job.js';

describe('canonicalQuery', () => {
  it.each([
    [
      { cmd: 'GetJobList', printer: 'A' },
      { Cmd: 'GetJobList', Printer: 'A' },
    ],
    [
      { MAXENTRIES: '3', showputonholdjobs: '1' },
      { MaxEntries: '3', ShowPutOnHoldJobs: '1' },
    ],
    [{ Job: ['a', 'b'] }, { Job: 'a' }],
    [{ Future: 'x' }, { Future: 'x' }],
    [{ Copies: 2 }, {}],
  ])('%j -> %j', (input, expected) => {
    expect(canonicalQuery(input)).toEqual(expected);
  });

  it.each(LOCAL_JOB_FIELDS)('knows the local-job parameter %s in any letter case', (field) => {
    expect(canonicalQuery({ [field.toLowerCase()]: '1' })).toEqual({ [field]: '1' });
  });
});

describe('resolveCommand', () => {
  it.each([
    ['GetVersion', 'GetVersion'],
    ['printjob', 'PrintJob'],
    [' UpdateLocalJob ', 'UpdateLocalJob'],
    ['FormatDisk', undefined],
    [undefined, undefined],
  ])('%s -> %s', (cmd, expected) => {
    expect(resolveCommand(cmd)).toBe(expected);
  });
});

describe('flagParam and intParam', () => {
  it.each([
    [undefined, true],
    ['', true],
    ['0', false],
    ['1', true],
    [' 1 ', true],
  ])('flag %j -> %s', (value, expected) => {
    expect(flagParam(value, 'Delete', 7, true)).toBe(expected);
  });

  it.each(['2', 'yes', '-1'])('flag %j fails with the given code naming the parameter', (value) => {
    expect(() => flagParam(value, 'Delete', 7, true)).toThrow(
      expect.objectContaining({ returnCode: 7, detail: 'Delete must be 0 or 1' }),
    );
  });

  it.each([
    [undefined, undefined],
    ['5', 5],
    [' 12 ', 12],
  ])('int %j -> %s', (value, expected) => {
    expect(intParam(value, 'Copies', { min: 1, max: 999, code: 6 })).toBe(expected);
  });

  it.each(['0', '1000', '1.5', 'two'])('int %j fails with code 6', (value) => {
    expect(() => intParam(value, 'Copies', { min: 1, max: 999, code: 6 })).toThrow(
      expect.objectContaining({ returnCode: 6, detail: 'Copies must be an integer from 1 to 999' }),
    );
  });
});

describe('failureHeaders', () => {
  it('localizes the text and appends the detail', () => {
    const headers = failureHeaders(new TpfmFailure(5, 'Job "x" is not in your queue'), 'de');
    expect(headers['X-FMP-Return']).toBe('5');
    expect(decodeErrText(headers['X-FMP-ErrText'])).toBe(
      'Auftragsdatei existiert nicht: Job "x" is not in your queue',
    );
    expect(headers['X-FMP-OSError']).toBeUndefined();
  });

  it('adds X-FMP-OSError and X-FMP-OSErrText for code 1', () => {
    const error = Object.assign(new Error('EACCES: permission denied'), { errno: -13 });
    const headers = failureHeaders(osFailure(error), 'en');
    expect(headers['X-FMP-Return']).toBe('1');
    expect(headers['X-FMP-OSError']).toBe('13');
    expect(decodeErrText(headers['X-FMP-OSErrText'])).toBe('EACCES: permission denied');
    expect(failureHeaders(osFailure(new Error('no such table')), 'en')['X-FMP-OSError']).toBe('1359');
  });
});

describe('formatOfExtension', () => {
  it.each([
    ['pdf', 'PDF'],
    ['PDF', 'PDF'],
    ['xps', 'XPS'],
    ['oxps', 'XPS'],
    ['txt', 'RAW'],
    ['jpg', 'RAW'],
  ])('%s -> %s', (ext, format) => {
    expect(formatOfExtension(ext)).toBe(format);
  });
});

describe('parseBasic', () => {
  const basic = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;
  it.each([
    [basic('04A1B2C3D4:demo-device'), { user: '04A1B2C3D4', password: 'demo-device' }],
    [basic('card:pass:with:colons'), { user: 'card', password: 'pass:with:colons' }],
    [basic(':nouser'), undefined],
    [basic('nocolon'), undefined],
    [`bAsIc  ${Buffer.from('u:p').toString('base64')}  `, { user: 'u', password: 'p' }],
    [`xBasic ${Buffer.from('u:p').toString('base64')}`, undefined],
    [`Basic ${Buffer.from('u:p').toString('base64')} junk`, undefined],
    ['Bearer abc', undefined],
    [undefined, undefined],
  ])('%s', (header, expected) => {
    expect(parseBasic(header)).toEqual(expected);
  });
});
