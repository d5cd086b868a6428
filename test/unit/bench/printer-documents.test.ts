import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkDocumentsAtPrinter, newestJobDocument } from '../../../bench/support/printer-documents.js';

describe('checkDocumentsAtPrinter', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  /** A spool directory holding `files` (name -> bytes). */
  const spool = (files: Record<string, number>) => {
    const dir = mkdtempSync(join(tmpdir(), 'spool-'));
    dirs.push(dir);
    for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, name), Buffer.alloc(bytes));
    return dir;
  };

  it('counts each job of the line once, by its whole document, whatever else the printer keeps', () => {
    const dir = spool({
      '1-bare-xo-a.pdf': 900,
      '1-bare-xo-a.prn': 12,
      '2-bare-xo-b.pdf': 900,
      '3-bare-pj-c.pdf': 900,
      '4-printrelay-d.pdf': 900,
    });
    expect(() => checkDocumentsAtPrinter(dir, 'bare-xo', 900, 2)).not.toThrow();
    expect(() => checkDocumentsAtPrinter(dir, 'bare-pj', 900, 1)).not.toThrow();
  });

  it('fails when a job of the line has no document, or a cut one', () => {
    const dir = spool({ '1-bare-xo-a.pdf': 900, '2-bare-xo-b.pdf': 899 });
    expect(() => checkDocumentsAtPrinter(dir, 'bare-xo', 900, 2)).toThrow(
      'bare-xo: the printer holds 1 whole documents of its jobs, not 2',
    );
    expect(() => checkDocumentsAtPrinter(dir, 'bare-pj', 900, 1)).toThrow(
      'bare-pj: the printer holds 0 whole documents of its jobs, not 1',
    );
  });

  it("finds the newest job's document by job id, not by mtime, leaving out the printer's output", () => {
    const dir = spool({
      '9-untitled.pdf': 900,
      '9-untitled.prn': 0,
      '21-untitled.pdf': 1600,
      '21-untitled.prn': 0,
      '22-printrelay-big.pdf': 1600,
      '22-printrelay-big.prn': 0,
    });
    // The output written after the document, and an older job's file touched last.
    utimesSync(join(dir, '22-printrelay-big.prn'), new Date(2026, 0, 2), new Date(2026, 0, 2));
    utimesSync(join(dir, '22-printrelay-big.pdf'), new Date(2026, 0, 1), new Date(2026, 0, 1));
    utimesSync(join(dir, '9-untitled.pdf'), new Date(2026, 0, 3), new Date(2026, 0, 3));
    expect(newestJobDocument(dir)).toBe('22-printrelay-big.pdf');
  });

  it('refuses a spool directory without a document, or with two for the newest job', () => {
    expect(() => newestJobDocument(spool({ '3-a.prn': 0, 'notes.txt': 4 }))).toThrow(
      /the printer kept no document in /,
    );
    expect(() => newestJobDocument(spool({ '3-a.pdf': 4, '3-a.dat': 4 }))).toThrow(
      'the printer kept two documents for its job 3: ',
    );
  });
});
