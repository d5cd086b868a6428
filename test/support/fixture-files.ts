/**
 * Paths and contents of the files under test/fixtures/, so a test finds them wherever it sits in
 * the tree.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Absolute path of `test/fixtures/<relative>`. */
export function fixturePath(relative: string): string {
  return fileURLToPath(new URL(`../fixtures/${relative}`, import.meta.url));
}

/** Text of `test/fixtures/<relative>`. */
export function readFixture(relative: string): string {
  return readFileSync(fixturePath(relative), 'utf8');
}

/** The recorded IPP attributes of a real printer model, `test/fixtures/printers/<name>.json`. */
export function printerFixture(name: string): Record<string, unknown> {
  return JSON.parse(readFixture(`printers/${name}.json`)) as Record<string, unknown>;
}
