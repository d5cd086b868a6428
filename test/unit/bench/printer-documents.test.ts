import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkDocumentsAtPrinter } from '../../../bench/support/printer-documents.js';

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
});
