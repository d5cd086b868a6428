import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentNodeEnv, agentNodeFlags, benchEntry } from '../../../bench/support/processes.js';
import { AGENT_NODE_ENV, AGENT_NODE_FLAGS } from '../../../src/service/agent-node-flags.js';

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

describe('agentNodeFlags (BENCH_AGENT_NODE_FLAGS)', () => {
  it("is the service's flags when unset, node's defaults when empty, the words when set", () => {
    expect(agentNodeFlags({})).toEqual([...AGENT_NODE_FLAGS]);
    expect(agentNodeFlags({ BENCH_AGENT_NODE_FLAGS: '' })).toEqual([]);
    expect(agentNodeFlags({ BENCH_AGENT_NODE_FLAGS: ' --a=1  --b ' })).toEqual(['--a=1', '--b']);
  });
});

describe('agentNodeEnv (BENCH_AGENT_ENV)', () => {
  it("is the service's environment when unset, nothing when empty", () => {
    expect(agentNodeEnv({})).toEqual({ ...AGENT_NODE_ENV });
    expect(agentNodeEnv({ BENCH_AGENT_ENV: '' })).toEqual({});
    expect(agentNodeEnv({ BENCH_AGENT_ENV: '  ' })).toEqual({});
  });

  it('reads VAR=value words, a value may hold = and be empty', () => {
    expect(agentNodeEnv({ BENCH_AGENT_ENV: 'MALLOC_ARENA_MAX=2  A=b=c EMPTY=' })).toEqual({
      MALLOC_ARENA_MAX: '2',
      A: 'b=c',
      EMPTY: '',
    });
  });

  it.each(['MALLOC_ARENA_MAX', '=2'])('names the word and the rule for %s', (word) => {
    expect(() => agentNodeEnv({ BENCH_AGENT_ENV: `A=1 ${word}` })).toThrow(
      `BENCH_AGENT_ENV: '${word}' must be VAR=value`,
    );
  });
});
