import { describe, expect, it } from 'vitest';
import {
  findSection,
  formatIni,
  keyValueLines,
  parseIni,
  sectionEntries,
} from '../../../src/protocol/tpfm-ini.js';

describe('parseIni', () => {
  it('drops a byte order mark that opens the body, so the first header is read', () => {
    expect(parseIni('\uFEFF[A]\r\nk=v')).toEqual([{ name: 'A', lines: ['k=v'] }]);
  });
  it('keeps a byte order mark inside a value', () => {
    expect(parseIni('[A]\r\nk=a\uFEFFb')).toEqual([{ name: 'A', lines: ['k=a\uFEFFb'] }]);
  });
  it('skips blank lines and lines opening with a semicolon, but keeps one ending with it', () => {
    expect(parseIni('[A]\n\n   \n; note\nx;\n')).toEqual([{ name: 'A', lines: ['x;'] }]);
  });
  it('reads a header only when the brackets enclose the whole line', () => {
    expect(parseIni('[A]\nx[B]\n[C]y\n[]\n[DE]')).toEqual([
      { name: 'A', lines: ['x[B]', '[C]y', '[]'] },
      { name: 'DE', lines: [] },
    ]);
  });
  it('trims the blanks around a line and inside the brackets of a name', () => {
    expect(parseIni('  [ Jobs ]  \r\n  a b  \r\n')).toEqual([{ name: 'Jobs', lines: ['a b'] }]);
  });
  it('ignores lines before the first header', () => {
    expect(parseIni('free\nk=v\n[A]\nx')).toEqual([{ name: 'A', lines: ['x'] }]);
  });
  it('keeps repeated sections in order', () => {
    expect(parseIni('[A]\nx\n[A]\ny')).toEqual([
      { name: 'A', lines: ['x'] },
      { name: 'A', lines: ['y'] },
    ]);
  });
});

describe('findSection', () => {
  const sections = [
    { name: 'Jobs', lines: ['first'] },
    { name: 'JOBS', lines: ['second'] },
  ];
  it('finds the first section of that name whatever the case', () => {
    expect(findSection(sections, 'jobs')?.lines).toEqual(['first']);
    expect(findSection(sections, 'JoBs')?.lines).toEqual(['first']);
    expect(findSection([{ name: 'SYSTEM', lines: [] }], 'System')?.name).toBe('SYSTEM');
  });
  it('answers undefined for a name no section has', () => {
    expect(findSection(sections, 'Upload')).toBeUndefined();
  });
});

describe('sectionEntries', () => {
  it('splits at the first "=" and trims key and value', () => {
    expect(sectionEntries({ name: 'A', lines: [' k = v = w ', 'x=', 'y=1'] })).toEqual({
      k: 'v = w',
      x: '',
      y: '1',
    });
  });
  it('skips lines without a key or without "="', () => {
    expect(sectionEntries({ name: 'A', lines: ['=v', 'plain', 'k=v'] })).toEqual({ k: 'v' });
  });
  it('answers an empty record for a missing section', () => {
    expect(sectionEntries(undefined)).toEqual({});
  });
});

describe('keyValueLines', () => {
  it('writes key=value lines in insertion order, numbers as text', () => {
    expect(keyValueLines({ b: 'x y', a: 2 })).toEqual(['b=x y', 'a=2']);
  });
  it.each([
    ['a\rb', 'v'],
    ['a\nb', 'v'],
    ['a=b', 'v'],
    ['k', 'a\rb'],
    ['k', 'a\nb'],
  ])('refuses key %j with value %j', (key, value) => {
    expect(() => keyValueLines({ [key]: value })).toThrow(
      new RangeError(`INI entry ${key}: keys and values must not contain line breaks (keys no '=')`),
    );
  });
  it('accepts "=" in a value', () => {
    expect(keyValueLines({ k: 'a=b' })).toEqual(['k=a=b']);
  });
});

describe('formatIni', () => {
  it('writes each section with CRLF line ends, one after the other', () => {
    expect(
      formatIni([
        { name: 'A', lines: ['1', '2'] },
        { name: 'B', lines: [] },
      ]),
    ).toBe('[A]\r\n1\r\n2\r\n[B]\r\n');
  });
  it('writes nothing for no sections', () => {
    expect(formatIni([])).toBe('');
  });
});
