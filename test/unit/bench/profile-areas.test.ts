import { describe, expect, it } from 'vitest';
import { areaOf, chargeWindows } from '../../../bench/support/profile-areas.js';
import type { CpuProfile } from '../../../bench/profile-summary.js';

const frame = (functionName: string, url: string) => ({ functionName, url });

/** root -> check (emulator/pull/tpfm) ; root -> send (agent/release) ; idle ; program ; inspector */
const PROFILE: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)', ''), children: [2, 3, 4, 5, 6, 7] },
    { id: 2, callFrame: frame('check', 'file:///app/src/emulator/pull/tpfm/tpfm-auth.ts') },
    { id: 3, callFrame: frame('send', 'file:///app/src/agent/release/release-session.ts') },
    { id: 4, callFrame: frame('(idle)', '') },
    { id: 5, callFrame: frame('(program)', '') },
    { id: 6, callFrame: frame('dispatch', 'node:inspector') },
    { id: 7, callFrame: frame('(garbage collector)', '') },
  ],
  startTime: 0,
  samples: [2, 3, 4, 5, 6, 7, 2],
  timeDeltas: [10, 10, 10, 10, 10, 10, 10],
};

describe('areaOf', () => {
  it.each([
    ['check src/emulator/pull/tpfm/tpfm-auth.ts', 'emulator/pull'],
    ['run dist/agent/agent.js', 'agent'],
    ['[node:net]', '[node]'],
    ['(native) writev', '(native)'],
    ['[undici]', '[undici]'],
    ['(garbage collector)', '(garbage collector)'],
  ])('%s is in %s', (label, area) => {
    expect(areaOf(label)).toBe(area);
  });
});

describe('chargeWindows', () => {
  it('sums the samples inside the windows, idle apart, busy by area', () => {
    // Sample times 10..70; the windows keep 10-20 and 40-60 (start excluded, end included):
    // check and send, then (program), the inspector and the collector.
    const charge = chargeWindows(PROFILE, [
      { fromUs: 0, toUs: 20 },
      { fromUs: 30, toUs: 60 },
    ]);
    expect(charge.busyUs).toBe(30);
    expect(charge.idleUs).toBe(20);
    expect(Object.fromEntries(charge.byArea)).toEqual({
      'emulator/pull': 10,
      'agent/release': 10,
      '(garbage collector)': 10,
    });
    expect([...charge.byLabel.keys()].sort()).toEqual([
      '(garbage collector)',
      'check src/emulator/pull/tpfm/tpfm-auth.ts',
      'send src/agent/release/release-session.ts',
    ]);
  });
});
