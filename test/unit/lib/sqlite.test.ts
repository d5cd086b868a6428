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
