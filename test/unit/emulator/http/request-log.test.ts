import { describe, expect, it } from 'vitest';
import { pathOnly } from '../../../../src/emulator/http/request-log.js';

describe('pathOnly', () => {
  it.each([
    ['/storage/abc?sig=secret&se=1', '/storage/abc'],
    ['/sfapi/Status/?id=1', '/sfapi/Status/'],
    ['/printing/v1/printers/', '/printing/v1/printers/'],
    ['/a#frag', '/a'],
  ])('%s -> %s', (url, path) => {
    expect(pathOnly(url)).toBe(path);
  });
});
