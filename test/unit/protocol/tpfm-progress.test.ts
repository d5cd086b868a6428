/**
 * PrintJob's progress stream, line by line: the chunks the server writes (and the values it
 * refuses), the lines a client reads (and the junk it refuses, named in the error), and the
 * splitter that rebuilds lines from pieces cut anywhere.
 */
import { describe, expect, it } from 'vitest';
import {
  formatProgressChunk,
  formatResultLine,
  ProgressLineSplitter,
  parseProgressLine,
} from '../../../src/protocol/tpfm-progress.js';
import { refusal } from '../../support/validation-refusals.js';

describe('formatProgressChunk', () => {
  it('writes pages and percentages with CRLF, 0 and 100 included', () => {
    expect(formatProgressChunk({ kind: 'pages', page: 0, total: 0 })).toBe('0/0\r\n');
    expect(formatProgressChunk({ kind: 'pages', page: 3, total: 12 })).toBe('3/12\r\n');
    expect(formatProgressChunk({ kind: 'percent', percent: 0 })).toBe('0%\r\n');
    expect(formatProgressChunk({ kind: 'percent', percent: 100 })).toBe('100%\r\n');
  });

  it.each([
    [-1, 5],
    [5, -1],
    [1.5, 5],
    [5, 1.5],
    [Number.MAX_SAFE_INTEGER + 1, 5],
    [5, Number.NaN],
  ])('refuses the pages %d/%d', (page, total) => {
    expect(refusal(() => formatProgressChunk({ kind: 'pages', page, total }))).toBe(
      'progress: pages must be non-negative integers',
    );
  });

  it.each([-1, 101, 50.5])('refuses the percentage %d', (percent) => {
    expect(refusal(() => formatProgressChunk({ kind: 'percent', percent }))).toBe(
      'progress: percent must be an integer from 0 to 100',
    );
  });

  it('writes the result line', () => {
    expect(formatResultLine(0)).toBe('X-FMP-Return: 0\r\n');
    expect(formatResultLine(10)).toBe('X-FMP-Return: 10\r\n');
  });
});

describe('parseProgressLine', () => {
  it.each([
    ['X-FMP-Return: 0', { kind: 'result', code: 0 }],
    ['x-fmp-return:12', { kind: 'result', code: 12 }],
    ['  X-FMP-Return \t:  7  ', { kind: 'result', code: 7 }],
    ['3/12', { kind: 'pages', page: 3, total: 12 }],
    ['13 / 120', { kind: 'pages', page: 13, total: 120 }],
    ['0%', { kind: 'percent', percent: 0 }],
    ['100 %', { kind: 'percent', percent: 100 }],
    ['42', { kind: 'percent', percent: 42 }],
  ])('reads %j', (line, parsed) => {
    expect(parseProgressLine(line)).toEqual(parsed);
  });

  it.each(['', '   ', '\t'])('reads the blank line %j as nothing', (line) => {
    expect(parseProgressLine(line)).toBeUndefined();
  });

  it.each([
    'Status X-FMP-Return: 0',
    'X-FMP-Return: 0 then',
    'X-FMP-Return: -1',
    'X-FMP-Returned: 0',
    'page 3/12',
    '3/12 pages',
    '101%',
    '1000',
    '%',
    '50%%',
    '5 0%',
  ])('refuses %j naming it', (line) => {
    expect(refusal(() => parseProgressLine(line))).toBe(
      `progress: unrecognised progress line "${line.trim()}"`,
    );
  });

  it('names at most the first 40 characters of a refused line', () => {
    const line = `junk ${'x'.repeat(60)}`;
    expect(refusal(() => parseProgressLine(line))).toBe(
      `progress: unrecognised progress line "${line.slice(0, 40)}"`,
    );
  });
});

describe('ProgressLineSplitter', () => {
  it('rebuilds CRLF and LF lines from pieces cut anywhere', () => {
    const splitter = new ProgressLineSplitter();
    expect(splitter.push('1/')).toEqual([]);
    expect(splitter.push('3\r')).toEqual([]);
    expect(splitter.push('\n2/3\n3/3\r\nX-FMP')).toEqual(['1/3', '2/3', '3/3']);
    expect(splitter.push('-Return: 0\r\n')).toEqual(['X-FMP-Return: 0']);
    expect(splitter.flush()).toEqual([]);
  });

  it('gives the last line without a line end on flush, once', () => {
    const splitter = new ProgressLineSplitter();
    expect(splitter.push('50%\nX-FMP-Return: 0')).toEqual(['50%']);
    expect(splitter.flush()).toEqual(['X-FMP-Return: 0']);
    expect(splitter.flush()).toEqual([]);
    expect(splitter.push('\r\n')).toEqual(['']);
  });

  it('gives nothing on flush for a blank rest', () => {
    const splitter = new ProgressLineSplitter();
    expect(splitter.push('1/2\n  ')).toEqual(['1/2']);
    expect(splitter.flush()).toEqual([]);
    expect(splitter.push('2/2\n')).toEqual(['2/2']);
  });
});
