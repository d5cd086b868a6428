import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findPackageRoot, packageRoot } from '../../../src/lib/package-root.js';

const dir = mkdtempSync(join(tmpdir(), 'package-root-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** root/package.json (printrelay), root/node_modules/x/package.json (another), a deep chunk dir. */
function tree(): { root: string; deep: string; other: string } {
  const root = join(dir, 'app');
  const other = join(root, 'node_modules', 'x');
  const deep = join(root, 'dist', 'cli', 'chunks');
  mkdirSync(other, { recursive: true });
  mkdirSync(deep, { recursive: true });
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'printrelay', version: '1.2.3' }));
  writeFileSync(join(other, 'package.json'), JSON.stringify({ name: 'x' }));
  writeFileSync(join(root, 'dist', 'package.json'), '{ not json');
  return { root, deep, other };
}

describe('findPackageRoot', () => {
  const { root, deep, other } = tree();

  it('finds the root from any depth below it, past an unparsable package.json', () => {
    expect(findPackageRoot(deep)).toBe(root);
    expect(findPackageRoot(join(root, 'dist'))).toBe(root);
    expect(findPackageRoot(root)).toBe(root);
  });

  it("skips another package's package.json on the way up", () => {
    expect(findPackageRoot(other)).toBe(root);
    expect(findPackageRoot(other, 'x')).toBe(other);
  });

  it('names the start directory when no package.json above it has the name', () => {
    expect(() => findPackageRoot(deep, 'not-there')).toThrow(
      `no package.json named "not-there" in ${deep} or above it`,
    );
  });

  it('finds this checkout for the running program', () => {
    expect(packageRoot()).toBe(join(import.meta.dirname, '..', '..', '..'));
  });
});
