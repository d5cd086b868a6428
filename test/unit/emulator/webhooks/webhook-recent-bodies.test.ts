import { describe, expect, it } from 'vitest';
import { RecentEventBodies } from '../../../../src/emulator/webhooks/webhook-recent-bodies.js';

describe('RecentEventBodies', () => {
  it('keeps the newest entries within the count bound, dropping the oldest first', () => {
    const bodies = new RecentEventBodies(3, 1000);
    for (const n of [1, 2, 3, 4]) bodies.remember(`e${n}`, `body ${n}`, n);
    expect(bodies.size).toBe(3);
    expect(bodies.get('e1')).toBeUndefined();
    expect(bodies.get('e4')).toEqual({ body: 'body 4', queuedAt: 4 });
  });

  it('keeps the newest entries within the character bound', () => {
    const bodies = new RecentEventBodies(100, 10);
    bodies.remember('a', '12345', 1);
    bodies.remember('b', '12345', 2);
    bodies.remember('c', '1234', 3);
    expect([bodies.get('a'), bodies.get('b')?.body, bodies.get('c')?.body]).toEqual([
      undefined,
      '12345',
      '1234',
    ]);
    // A body larger than the whole bound is not kept, and drops nothing.
    bodies.remember('d', 'x'.repeat(11), 4);
    expect([bodies.get('d'), bodies.size]).toEqual([undefined, 2]);
  });

  it('never replaces the body of an id it keeps', () => {
    const bodies = new RecentEventBodies();
    bodies.remember('a', 'first', 1);
    bodies.remember('a', 'second', 2);
    expect(bodies.get('a')).toEqual({ body: 'first', queuedAt: 1 });
  });
});
