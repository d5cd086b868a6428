import { describe, expect, it } from 'vitest';
import { fairOrder } from '../../../../src/emulator/webhooks/webhook-fair-order.js';

const due = [
  { id: 'a1', organizationId: 'A' },
  { id: 'a2', organizationId: 'A' },
  { id: 'a3', organizationId: 'A' },
  { id: 'b1', organizationId: 'B' },
  { id: 'c1', organizationId: 'C' },
  { id: 'c2', organizationId: 'C' },
];

describe('fairOrder', () => {
  it.each([
    [0, ['a1', 'b1', 'c1', 'a2', 'c2', 'a3']],
    [1, ['b1', 'c2', 'a2', 'c1', 'a3', 'a1']],
    [2, ['c1', 'a3', 'b1', 'c2', 'a1', 'a2']],
  ])('at turn %i interleaves organizations, then their endpoints, both rotated', (turn, order) => {
    expect(fairOrder(due, turn)).toEqual(order);
  });

  it('gives one organization with many endpoints no more turns per round than one with a single endpoint', () => {
    const many = [
      ...Array.from({ length: 20 }, (_, i) => ({ id: `s${i}`, organizationId: 'stuck' })),
      { id: 'h', organizationId: 'healthy' },
    ];
    for (let turn = 0; turn < 4; turn += 1) expect(fairOrder(many, turn).indexOf('h')).toBeLessThan(2);
  });

  it('is empty for no due endpoints', () => {
    expect(fairOrder([], 5)).toEqual([]);
  });
});
