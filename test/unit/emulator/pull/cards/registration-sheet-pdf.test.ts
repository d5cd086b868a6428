import { describe, expect, it } from 'vitest';
import { registrationSheetPdf } from '../../../../../src/emulator/pull/cards/registration-sheet-pdf.js';

describe('registrationSheetPdf', () => {
  const pdf = registrationSheetPdf({
    code: '042137',
    claimAt: 'http://x/portal/cards/claim',
    printerName: 'Demo (1)',
  });
  const text = pdf.toString('latin1');

  it('is a PDF that carries the code, the claim address and the escaped printer name', () => {
    expect(text.startsWith('%PDF-1.4\n')).toBe(true);
    expect(text.trimEnd().endsWith('%%EOF')).toBe(true);
    expect(text).toContain('(042137) Tj');
    expect(text).toContain('(http://x/portal/cards/claim) Tj');
    expect(text).toContain('(Printer: Demo \\(1\\)) Tj');
  });

  it('has a cross-reference table whose offsets point at each object', () => {
    const xrefAt = Number(/startxref\n(\d+)\n/.exec(text)![1]);
    expect(text.slice(xrefAt, xrefAt + 4)).toBe('xref');
    const offsets = [...text.slice(xrefAt).matchAll(/^(\d{10}) 00000 n $/gm)].map((m) => Number(m[1]));
    expect(offsets).toHaveLength(5);
    offsets.forEach((offset, index) => {
      expect(text.slice(offset).startsWith(`${index + 1} 0 obj\n`)).toBe(true);
    });
  });

  it('declares the exact length of its content stream', () => {
    const match = /<< \/Length (\d+) >>\nstream\n/.exec(text)!;
    const start = match.index + match[0].length;
    const end = text.indexOf('\nendstream', start);
    expect(end - start).toBe(Number(match[1]));
  });
});
