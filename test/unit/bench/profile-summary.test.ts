import { describe, expect, it } from 'vitest';
import { type CpuProfile, chargeSamples } from '../../../bench/profile-summary.js';

const frame = (functionName: string, url: string) => ({ functionName, url });

/**
 * root -> drive (ours) -> move (ours) -> run (native SQLite)
 *                      -> write (node:net) -> writev (native)
 * root -> onData (undici) -> parse (native)
 * root -> (garbage collector), (idle)
 */
const PROFILE: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)', ''), children: [2, 6, 8, 9] },
    { id: 2, callFrame: frame('drive', 'file:///app/src/agent/jobs/job-runner.ts'), children: [3, 5] },
    { id: 3, callFrame: frame('move', 'file:///app/src/store/job-ledger.ts'), children: [4] },
    { id: 4, callFrame: frame('run', '') },
    { id: 5, callFrame: frame('write', 'node:net'), children: [10] },
    { id: 6, callFrame: frame('onData', 'file:///app/node_modules/undici/lib/client.js'), children: [7] },
    { id: 7, callFrame: frame('parse', '') },
    { id: 8, callFrame: frame('(garbage collector)', '') },
    { id: 9, callFrame: frame('(idle)', '') },
    { id: 10, callFrame: frame('writev', '') },
  ],
  samples: [4, 4, 3, 10, 2, 7, 8, 9, 9],
  timeDeltas: [100, 200, 50, 70, 10, 30, 40, 1000, 1000],
};

describe('chargeSamples', () => {
  it('charges each sample to the deepest own function, else the deepest module, else V8 entry', () => {
    expect(Object.fromEntries(chargeSamples(PROFILE))).toEqual({
      'move src/store/job-ledger.ts': 350,
      'drive src/agent/jobs/job-runner.ts': 80,
      '[undici]': 30,
      '(garbage collector)': 40,
      '(idle)': 2000,
    });
  });

  it('names a scoped package by scope and name, and a frame with no url at all as native', () => {
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame('(root)', ''), children: [2, 3] },
        { id: 2, callFrame: frame('x', '/app/node_modules/@fastify/ajv-compiler/index.js') },
        { id: 3, callFrame: frame('hash', '') },
      ],
      samples: [2, 3],
      timeDeltas: [5, 7],
    };
    expect(Object.fromEntries(chargeSamples(profile))).toEqual({
      '[@fastify/ajv-compiler]': 5,
      '(native) hash': 7,
    });
  });

  it('keeps only the samples whose time the filter keeps, counted from the start time', () => {
    // Sample times: 1100, 1300, 1350, 1420, 1430, 1460, 1500, 2500, 3500.
    const timed: CpuProfile = { ...PROFILE, startTime: 1000 };
    const window = (at: number) => at > 1300 && at <= 1500;
    expect(Object.fromEntries(chargeSamples(timed, window))).toEqual({
      'move src/store/job-ledger.ts': 50,
      'drive src/agent/jobs/job-runner.ts': 80,
      '[undici]': 30,
      '(garbage collector)': 40,
    });
  });
});
