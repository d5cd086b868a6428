import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SqliteBindingMissingError } from '../../../src/lib/sqlite.js';

describe('SqliteBindingMissingError', () => {
  it('names the package, the Node and the way out for each line', () => {
    const node20 = new SqliteBindingMissingError('better-sqlite3-node20', new Error('Cannot find module'));
    expect(node20.code).toBe('sqlite_binding_missing');
    expect(node20.message).toBe(
      `SQLite binding better-sqlite3-node20 for Node ${process.versions.node} cannot be loaded (Cannot find module): ` +
        'it is compiled by `npm install` on Node 20: install a C++ toolchain (python3, make, g++) and run ' +
        '`npm rebuild better-sqlite3-node20`, or use Node 22.14 or newer',
    );
    const line13 = new SqliteBindingMissingError('better-sqlite3', 'gone');
    expect(line13.message).toBe(
      `SQLite binding better-sqlite3 for Node ${process.versions.node} cannot be loaded (gone): run \`npm install\` again with this Node`,
    );
  });
});

describe('the one door to SQLite', () => {
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  const importsBinding =
    /(?:^|\n)\s*import\s+(?!type\b)[^;]*?from\s+['"]better-sqlite3(?:-node20)?['"]|\bimport\(\s*['"]better-sqlite3|\brequire\(\s*['"]better-sqlite3/;

  it('is src/lib/sqlite.ts: no other module of src/, test/, bench/ or scripts/ loads a binding itself', () => {
    const offenders: string[] = [];
    for (const top of ['src', 'test', 'bench', 'scripts']) {
      for (const entry of readdirSync(join(root, top), { recursive: true, withFileTypes: true })) {
        if (!entry.isFile() || !/\.(ts|js|mjs)$/.test(entry.name)) continue;
        const path = relative(root, join(entry.parentPath, entry.name)).split('\\').join('/');
        if (path === 'src/lib/sqlite.ts' || path === 'test/unit/lib/sqlite.test.ts') continue;
        if (importsBinding.test(readFileSync(join(root, path), 'utf8'))) offenders.push(path);
      }
    }
    // A module that loads better-sqlite3 itself gets line 13 on Node 20, where it crashes the process.
    expect(offenders).toEqual([]);
  });

  it('is caught when a module imports the binding directly', () => {
    expect(importsBinding.test("import Database from 'better-sqlite3';")).toBe(true);
    expect(importsBinding.test("const x = await import('better-sqlite3-node20');")).toBe(true);
    expect(importsBinding.test("import type BetterSqlite3 from 'better-sqlite3';")).toBe(false);
  });
});
