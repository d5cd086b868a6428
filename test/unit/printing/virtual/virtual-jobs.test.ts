import { describe, expect, it } from 'vitest';
import { printedFileName } from '../../../../src/printing/virtual/virtual-jobs.js';

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
