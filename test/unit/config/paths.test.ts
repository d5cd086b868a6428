import { describe, expect, it } from 'vitest';
import { defaultDataDir } from '../../../src/config/paths.js';

describe('defaultDataDir', () => {
  it.each([
    ['linux', {}, '/var/lib/printrelay'],
    ['darwin', {}, '/var/lib/printrelay'],
    ['win32', { ProgramData: 'D:\\Data' }, 'D:\\Data\\PrintRelay'],
    ['win32', {}, 'C:\\ProgramData\\PrintRelay'],
  ] as const)('%s %j -> %s', (platform, env, expected) => {
    expect(defaultDataDir(platform, env)).toBe(expected);
  });
});
