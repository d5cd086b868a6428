import { describe, expect, it } from 'vitest';
import { ValidationErrors } from '../../../src/lib/errors.js';
import {
  formatCapabilitiesBody,
  formatJobListBody,
  formatUploadBody,
  formatVersionBody,
  parseCapabilitiesBody,
  parseJobListBody,
  parseUploadBody,
  parseVersionBody,
} from '../../../src/protocol/tpfm-bodies.js';
import {
  decodeErrText,
  encodeErrText,
  parseReturnCode,
  TPFM_COMMANDS,
  tpfmErrorText,
} from '../../../src/protocol/tpfm-codes.js';
import { findSection, formatIni, parseIni, sectionEntries } from '../../../src/protocol/tpfm-ini.js';
import { formatJobListLine, parseJobListLine, type TpfmJob } from '../../../src/protocol/tpfm-job-list.js';
import {
  localJobQuery,
  parseCreateLocalJob,
  parseUpdateLocalJob,
} from '../../../src/protocol/tpfm-local-job.js';
import {
  formatProgressChunk,
  formatResultLine,
  parseProgressLine,
  ProgressLineSplitter,
} from '../../../src/protocol/tpfm-progress.js';

const job: TpfmJob = {
  fileName: 'job-0001.spl',
  size: 12345,
  created: 1767225600,
  modified: 1767225660,
  attributes: 0,
  jobId: '6f1c2d3e-0a1b-4c5d-8e9f-001122334455',
  displayName: 'Größenübersicht Q1.pdf',
  driverName: 'PrintRelay PDF',
};

describe('INI sections', () => {
  it('parses tolerantly: CRLF/LF, comments, blank lines, extra and unknown sections', () => {
    const text =
      '\uFEFFjunk\r\n[FileVersions]\r\nserver.exe=1.2.3\n; comment\n\n[Future]\nX=1\n[SYSTEM]\nType=Cloud';
    const sections = parseIni(text);
    expect(sections.map((s) => s.name)).toEqual(['FileVersions', 'Future', 'SYSTEM']);
    expect(sectionEntries(findSection(sections, 'system'))).toEqual({ Type: 'Cloud' });
  });
  it('formats with CRLF and round-trips', () => {
    const text = formatIni([{ name: 'A', lines: ['k=v=w'] }]);
    expect(text).toBe('[A]\r\nk=v=w\r\n');
    expect(sectionEntries(parseIni(text)[0])).toEqual({ k: 'v=w' });
  });
  it.each([
    [formatVersionBody({ 'tpfm.dll': '4.1.0' }), (t: string) => parseVersionBody(t), { 'tpfm.dll': '4.1.0' }],
    [
      formatCapabilitiesBody({ commands: ['GetVersion', 'PrintJob'], systemType: 'Cloud' }),
      (t: string) => parseCapabilitiesBody(t),
      { commands: ['GetVersion', 'PrintJob'], systemType: 'Cloud' },
    ],
    [
      formatUploadBody({ uri: 'https://s/x?sig=1', httpHeaders: { 'x-ms-blob-type': 'BlockBlob' } }),
      (t: string) => parseUploadBody(t),
      { uri: 'https://s/x?sig=1', httpHeaders: { 'x-ms-blob-type': 'BlockBlob' } },
    ],
  ])('body %# round-trips', (text, parse, expected) => {
    expect(parse(text)).toEqual(expected);
  });
  it('orders capabilities numerically, not as text', () => {
    const text = '[Commands]\r\n10=J\r\n2=B\r\n1=A\r\n';
    expect(parseCapabilitiesBody(text).commands).toEqual(['A', 'B', 'J']);
  });
});

describe('job-list lines', () => {
  it('formats in the spec order with quoted UTF-8 names and parses back', () => {
    const line = formatJobListLine(job);
    expect(line).toBe(
      'job-0001.spl:12345:1767225600:1767225660:0:6f1c2d3e-0a1b-4c5d-8e9f-001122334455:"Größenübersicht Q1.pdf":"PrintRelay PDF"',
    );
    expect(parseJobListLine(line)).toEqual(job);
    expect(parseJobListBody(formatJobListBody([job, job]))).toHaveLength(2);
  });
  it('reads unquoted and empty display names', () => {
    expect(parseJobListLine('a.spl:1:2:3:0:ABC123::Drv').displayName).toBe('');
    expect(parseJobListLine('a.spl:1:2:3:0:ABC123:Report:Drv').displayName).toBe('Report');
  });
  it.each([
    [{ ...job, fileName: 'a:b' }, 'fileName'],
    [{ ...job, displayName: 'x:y' }, 'displayName'],
    [{ ...job, jobId: 'a b' }, 'jobId'],
    [{ ...job, size: -1 }, 'size'],
  ])('refuses bad field %#', (bad, field) => {
    expect(() => formatJobListLine(bad)).toThrow(field);
  });
  it.each([
    ['a.spl:1:2:3:0:ABC', 'must have 8'],
    ['a.spl:x:2:3:0:ABC:d:e', 'size'],
    [':1:2:3:0:ABC:d:e', 'fileName'],
  ])('refuses malformed line %s', (line, message) => {
    expect(() => parseJobListLine(line)).toThrow(message);
  });
  it('names the line number of a bad body line', () => {
    expect(() => parseJobListBody('[Jobs]\r\nbad\r\n')).toThrow('Jobs line 1');
  });
});

describe('return codes and error texts', () => {
  it.each([
    [1, 'en', 'Operating system error on the server'],
    [5, 'de', 'Auftragsdatei existiert nicht'],
    [10, 'de-AT', 'Druckauftrag abgebrochen'],
    [12, 'en', 'Invalid local job parameter'],
    [13, 'fr', 'Unknown or closed local job'],
    [99, 'de', 'Unbekannter Fehlercode 99'],
  ])('code %i in %s', (code, lang, text) => {
    expect(tpfmErrorText(code, lang)).toBe(text);
  });
  it('base64-codes UTF-8 texts and tolerates garbage', () => {
    const encoded = encodeErrText('Ungültiger Drucker');
    expect(encoded).toBe(Buffer.from('Ungültiger Drucker', 'utf8').toString('base64'));
    expect(decodeErrText(encoded)).toBe('Ungültiger Drucker');
    expect(decodeErrText(undefined)).toBe('');
    expect(decodeErrText('%%%')).toBe('');
  });
  it('parses X-FMP-Return values', () => {
    expect([
      parseReturnCode('0'),
      parseReturnCode(' 10 '),
      parseReturnCode('x'),
      parseReturnCode(undefined),
    ]).toEqual([0, 10, undefined, undefined]);
  });
  it('lists the codes per command of the spec', () => {
    expect(TPFM_COMMANDS.UpdateLocalJob.codes).toEqual([1, 2, 3, 12, 13]);
    expect(TPFM_COMMANDS.GetVersion.auth).toBe('none');
  });
});

describe('progress stream', () => {
  it.each([
    [{ kind: 'pages', page: 3, total: 10 } as const, '3/10\r\n'],
    [{ kind: 'percent', percent: 45 } as const, '45%\r\n'],
  ])('formats %o', (line, text) => {
    expect(formatProgressChunk(line)).toBe(text);
    expect(parseProgressLine(text)).toEqual(line);
  });
  it('formats and parses the final result line', () => {
    expect(formatResultLine(10)).toBe('X-FMP-Return: 10\r\n');
    expect(parseProgressLine('x-fmp-return:0')).toEqual({ kind: 'result', code: 0 });
    expect(parseProgressLine('  ')).toBeUndefined();
    expect(() => parseProgressLine('hello')).toThrow('progress');
    expect(() => formatProgressChunk({ kind: 'percent', percent: 101 })).toThrow('0 to 100');
  });
  it('splits lines across arbitrary chunk boundaries', () => {
    const splitter = new ProgressLineSplitter();
    expect(splitter.push('1/3\r')).toEqual([]);
    expect(splitter.push('\n2/3\r\nX-FMP-')).toEqual(['1/3', '2/3']);
    expect(splitter.push('Return: 0')).toEqual([]);
    expect(splitter.flush()).toEqual(['X-FMP-Return: 0']);
  });
});

describe('local-job parameters', () => {
  it('parses a full CreateLocalJob leniently', () => {
    const params = parseCreateLocalJob({
      Printer: 'p1',
      Type: 'copy',
      Color: '1',
      Copies: '2',
      PageCoverage: '100',
      PrintedPages: '4',
      PrintedColorPages: '4',
      Status: 'succeeded',
      Unknown: 'ignored',
    });
    expect(params).toEqual({
      Printer: 'p1',
      Type: 'Copy',
      Color: 1,
      Copies: 2,
      PageCoverage: 100,
      PrintedPages: 4,
      PrintedColorPages: 4,
      Status: 'Succeeded',
    });
    expect(localJobQuery(params)).toMatchObject({ Copies: '2', Type: 'Copy' });
  });
  it.each([
    [{ Type: 'Copy' }, 'Printer: is required'],
    [{ Printer: 'p', Type: 'Scan' }, 'Type: must be Copy'],
    [{ Printer: 'p', Type: 'Copy', PageCoverage: '101' }, 'PageCoverage: must be an integer from 0 to 100'],
    [{ Printer: 'p', Type: 'Copy', Color: '2' }, 'Color: must be 0 or 1'],
    [
      { Printer: 'p', Type: 'Copy', PrintedPages: '2', PrintedColorPages: '3' },
      'PrintedColorPages: must be at most',
    ],
    [
      { Printer: 'p', Type: 'Copy', TotalPrintedPages: '1', TotalPrintedColorPages: '3' },
      'TotalPrintedColorPages: must be at most',
    ],
    [{ Printer: 'p', Type: 'Copy', Status: 'Done' }, 'Status: must be Pending'],
    [{ Printer: 'p', Type: 'Copy', JobId: 'x' }, 'JobId: is not a parameter of CreateLocalJob'],
  ])('CreateLocalJob refuses %o', (query, message) => {
    expect(() => parseCreateLocalJob(query)).toThrow(message);
  });
  it('reports every error at once on UpdateLocalJob', () => {
    try {
      parseUpdateLocalJob({ Printer: 'p', Copies: '0' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationErrors);
      expect((error as ValidationErrors).errors.map((e) => e.field)).toEqual(['JobId', 'Printer', 'Copies']);
    }
  });
  it('accepts an update with only changed parameters', () => {
    expect(parseUpdateLocalJob({ JobId: 'J1', Status: 'Failed' })).toEqual({ JobId: 'J1', Status: 'Failed' });
  });
});
