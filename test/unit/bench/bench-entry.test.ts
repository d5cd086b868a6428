import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchEntry } from '../../../bench/support/processes.js';

const root = join(import.meta.dirname, '..', '..', '..');

describe('benchEntry (BENCH_ENTRY)', () => {
  it.each([
    ['dist', join(root, 'dist', 'cli', 'main.js')],
    ['/tmp/ab/tsc/dist/cli/main.js', '/tmp/ab/tsc/dist/cli/main.js'],
    ['other/dist/cli/main.js', resolve('other/dist/cli/main.js')],
    [undefined, join(root, 'bin', 'printrelay.js')],
    ['', join(root, 'bin', 'printrelay.js')],
  ])('%s runs %s', (setting, file) => {
    expect(benchEntry(setting)).toBe(file);
  });
});
