import { describe, expect, it } from 'vitest';
import { printedFileName, TextPageCounter } from '../../../../src/printing/virtual/virtual-jobs.js';

describe('printedFileName', () => {
  const job = 'printrelay-64114807-02ee-48fd-8b15-44a2d4b8c071';
  it.each<[string, { name: string; format: string; documentName?: string }, string]>([
    [
      'job id and document name, the extension once',
      { name: job, format: 'application/pdf', documentName: 'sample.pdf' },
      `3-${job}-sample.pdf`,
    ],
    [
      'a text document keeps its own name',
      { name: job, format: 'text/plain', documentName: 'README.md' },
      `3-${job}-README.md.txt`,
    ],
    [
      'unsafe characters become underscores',
      { name: job, format: 'application/pdf', documentName: 'Q3 report (final).PDF' },
      `3-${job}-Q3_report_final_.pdf`,
    ],
    ['no document name', { name: job, format: 'application/pdf' }, `3-${job}.pdf`],
  ])('%s', (_name, draft, expected) => {
    expect(printedFileName(3, draft)).toBe(expected);
  });
});

describe('TextPageCounter', () => {
  const count = (chunks: string[]) => {
    const counter = new TextPageCounter();
    for (const c of chunks) counter.push(Buffer.from(c));
    return counter.finish();
  };
  it.each<[string, string[], number]>([
    ['one line', ['Hello from PrintRelay\n'], 1],
    ['empty document', [''], 1],
    ['66 lines fill one page', ['x\n'.repeat(66)], 1],
    ['67 lines need two', ['x\n'.repeat(67)], 2],
    ['a form feed starts a page', ['page one\n\fpage two\n'], 2],
    ['CRLF and split chunks', ['a\r', '\nb\r\n', 'c'], 1],
    ['130 lines without a final newline', [`${'x\n'.repeat(129)}x`], 2],
  ])('%s', (_name, chunks, expected) => {
    expect(count(chunks)).toBe(expected);
  });
});
