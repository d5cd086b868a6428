import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/lib/errors.js';
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

describe('GetVersion body', () => {
  it('writes the files under [FileVersions]', () => {
    expect(formatVersionBody({ 'tpfm.dll': '4.1.0', 'server.exe': '2' })).toBe(
      '[FileVersions]\r\ntpfm.dll=4.1.0\r\nserver.exe=2\r\n',
    );
  });
  it('reads [FileVersions] and no other section', () => {
    expect(parseVersionBody('[Other]\r\na=1\r\n[fileversions]\r\nb=2\r\n')).toEqual({ b: '2' });
  });
});

describe('GetCapabilities body', () => {
  it('numbers the commands from 1 and writes [SYSTEM] Type=', () => {
    expect(formatCapabilitiesBody({ commands: ['GetVersion', 'PrintJob'], systemType: 'Cloud' })).toBe(
      '[Commands]\r\n1=GetVersion\r\n2=PrintJob\r\n[SYSTEM]\r\nType=Cloud\r\n',
    );
  });
  it('leaves [SYSTEM] out without a system type', () => {
    expect(formatCapabilitiesBody({ commands: ['GetVersion'], systemType: undefined })).toBe(
      '[Commands]\r\n1=GetVersion\r\n',
    );
  });
  it('sorts commands by number, also numbers written with leading zeros', () => {
    const text = '[Commands]\r\n010=J\r\n02=B\r\n001=A\r\n';
    expect(parseCapabilitiesBody(text).commands).toEqual(['A', 'B', 'J']);
  });
  it('reads only keys made of digits alone', () => {
    const text = '[Commands]\r\n1=A\r\nx2=X\r\n3y=Y\r\nName=N\r\n4=D\r\n';
    expect(parseCapabilitiesBody(text)).toEqual({ commands: ['A', 'D'], systemType: undefined });
  });
  it('answers no commands and no type for a body without those sections', () => {
    expect(parseCapabilitiesBody('[Other]\r\n1=A\r\n')).toEqual({ commands: [], systemType: undefined });
  });
});

describe('GetJobList body', () => {
  const job = {
    fileName: 'a.spl',
    size: 1,
    created: 2,
    modified: 3,
    attributes: 0,
    jobId: 'ABC',
    displayName: 'doc',
    driverName: 'drv',
  };
  it('round-trips the jobs in order', () => {
    const jobs = [job, { ...job, fileName: 'b.spl', jobId: 'DEF' }];
    const text = formatJobListBody(jobs);
    expect(text.startsWith('[Jobs]\r\n')).toBe(true);
    expect(parseJobListBody(text)).toEqual(jobs);
  });
  it('answers no jobs for a body without [Jobs]', () => {
    expect(parseJobListBody('[Other]\r\nx\r\n')).toEqual([]);
    expect(parseJobListBody('')).toEqual([]);
  });
  it('names the line number and the rule of a malformed line', () => {
    const bad = `${formatJobListBody([job])}bad\r\n`;
    let caught: unknown;
    try {
      parseJobListBody(bad);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).field).toBe('Jobs line 2');
    expect((caught as ValidationError).rule).toBe('jobListLine: must have 8 colon-separated fields, got 1');
  });
});

describe('PrepareUpload body', () => {
  it('writes [Upload] Uri= and [HttpHeaders]', () => {
    expect(
      formatUploadBody({ uri: 'https://s/x?sig=1', httpHeaders: { 'x-ms-blob-type': 'BlockBlob' } }),
    ).toBe('[Upload]\r\nUri=https://s/x?sig=1\r\n[HttpHeaders]\r\nx-ms-blob-type=BlockBlob\r\n');
  });
  it('reads the headers, none when the section is missing', () => {
    expect(parseUploadBody('[Upload]\r\nUri=https://s/x\r\n')).toEqual({
      uri: 'https://s/x',
      httpHeaders: {},
    });
  });
  it.each(['[Upload]\r\nUri=\r\n', '[Upload]\r\nOther=1\r\n', ''])(
    'refuses a body without a Uri: %j',
    (text) => {
      let caught: unknown;
      try {
        parseUploadBody(text);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ValidationError);
      expect((caught as ValidationError).field).toBe('Upload.Uri');
      expect((caught as ValidationError).rule).toBe('is required in a PrepareUpload response');
    },
  );
});
