import { describe, expect, it } from 'vitest';
import {
  contentTypeForExtension,
  FILEEXT,
  isSupportedExtension,
  JOB_STATUS,
  SUPPORTED_FILE_EXTENSIONS,
  SUPPORTED_FILE_TYPES,
  sfapiConfiguration,
  unknownJobStatus,
} from '../../../src/protocol/sfapi-configuration.js';

/** The printable extensions as the spec lists them, in its order. */
const SPEC_EXTENSIONS =
  'bmp, csv, doc, docm, docx, dot, dotm, dotx, eml, gif, htm, html, jpeg, jpg, log, mht, mhtml, odf, odg, odm, odp, odt, otg, oth, otp, ott, pdf, png, pot, potm, potx, pps, ppsx, ppt, pptm, pptx, rtf, scp, sda, sdd, sds, sdw, sgl, smf, sti, stw, sxd, sxg, sxi, sxm, sxw, tif, tiff, tpf, txt, vor, wtx, xls, xlsb, xlsm, xlsx, xlt, xltm, xltx, xml, xps'.split(
    ', ',
  );

describe('supported file types', () => {
  it("lists the spec's extensions in its order, FILEEXT with a trailing semicolon", () => {
    expect(SUPPORTED_FILE_EXTENSIONS).toEqual(SPEC_EXTENSIONS);
    expect(FILEEXT).toBe(`${SPEC_EXTENSIONS.join(';')};`);
  });
  it('gives every extension a media type of the form type/subtype', () => {
    for (const [extension, type] of Object.entries(SUPPORTED_FILE_TYPES)) {
      expect({ extension, type }).toEqual({
        extension,
        type: expect.stringMatching(/^[a-z]+\/[a-z0-9.+-]+$/i),
      });
    }
  });
  it('gives the common types their registered media types', () => {
    expect(contentTypeForExtension('pdf')).toBe('application/pdf');
    expect(contentTypeForExtension('jpg')).toBe('image/jpeg');
    expect(contentTypeForExtension('txt')).toBe('text/plain');
    expect(contentTypeForExtension('docx')).toBe(
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    );
  });
  it('answers application/octet-stream for an extension it does not list', () => {
    expect(contentTypeForExtension('exe')).toBe('application/octet-stream');
    expect(contentTypeForExtension('')).toBe('application/octet-stream');
  });
  it('knows its own extensions only, not the names an object inherits', () => {
    expect(isSupportedExtension('pdf')).toBe(true);
    expect(isSupportedExtension('PDF')).toBe(false);
    expect(isSupportedExtension('exe')).toBe(false);
    expect(isSupportedExtension('toString')).toBe(false);
    expect(isSupportedExtension('__proto__')).toBe(false);
  });
  it('cannot be changed', () => {
    expect(Object.isFrozen(SUPPORTED_FILE_TYPES)).toBe(true);
    expect(Object.isFrozen(SUPPORTED_FILE_EXTENSIONS)).toBe(true);
    expect(Object.isFrozen(JOB_STATUS)).toBe(true);
  });
});

describe('sfapiConfiguration', () => {
  const fixed = {
    Drivers: { PrinterDynamic: 'PrintRelay Dynamic', PrinterStatic: 'PrintRelay Static' },
    Folders: [{ export: 'Documents', id: 1, op: 0 }],
    SFForms: { $Count: 0 },
    Shell: [],
  };
  it('names an https service by host and default port 443', () => {
    expect(sfapiConfiguration('https://print.example.test')).toEqual({
      ...fixed,
      System: {
        BW: 0,
        CONNECT: 'print.example.test:443',
        CONNECTEX: 'https://print.example.test/TPFM/',
        DocProvUplInterval: 30,
        FILEEXT,
        HOST: 'print.example.test',
        HOSTEX: 'https://print.example.test',
        MaxLocalPreviewFileSize: 10485760,
      },
    });
  });
  it('names an http service by default port 80, and keeps a port given', () => {
    expect(sfapiConfiguration('http://127.0.0.1/x').System).toMatchObject({
      CONNECT: '127.0.0.1:80',
      CONNECTEX: 'http://127.0.0.1/TPFM/',
      HOST: '127.0.0.1',
      HOSTEX: 'http://127.0.0.1',
    });
    expect(sfapiConfiguration('http://localhost:8443').System).toMatchObject({
      CONNECT: 'localhost:8443',
      CONNECTEX: 'http://localhost:8443/TPFM/',
      HOSTEX: 'http://localhost:8443',
    });
  });
});

describe('job status', () => {
  it('has the status codes of the jobstatus field', () => {
    expect(JOB_STATUS).toEqual({
      finished: 0,
      invalidJob: 2,
      processing: 129,
      noStatusYet: 1246,
      mustRestart: 3011,
    });
  });
  it('answers an unknown job with invalidJob and nothing printed', () => {
    expect(unknownJobStatus()).toEqual({
      jobpagesprinted: 0,
      jobpagestotal: 0,
      jobposition: 0,
      jobstatus: 2,
      jobstatusstring: 'ERROR|INVALID_JOB|',
    });
  });
});
