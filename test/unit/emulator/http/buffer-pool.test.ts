import { describe, expect, it } from 'vitest';
import { BufferPool } from '../../../../src/emulator/http/buffer-pool.js';

describe('BufferPool', () => {
  it('hands back the buffers it was given, keeps at most maxIdle, and counts what is out', async () => {
    const pool = new BufferPool(16, 1);
    const a = pool.take();
    const b = pool.take();
    expect([a.length, pool.inUse, pool.allocated]).toEqual([16, 2, 2]);
    let drained = false;
    const done = pool.drained().then(() => {
      drained = true;
    });
    pool.give(a);
    await Promise.resolve();
    expect(drained).toBe(false);
    pool.give(b);
    await done;
    expect([pool.inUse, pool.idleCount]).toEqual([0, 1]);
    expect(pool.take() === a).toBe(true);
    expect(pool.allocated).toBe(2);
  });

  it('refuses a buffer it did not hand out and bad sizes, naming them', () => {
    const pool = new BufferPool(8, 2);
    expect(() => pool.give(Buffer.alloc(8))).toThrow(/did not hand out/);
    expect(() => new BufferPool(0, 2)).toThrow(/size: must be a positive whole number/);
    expect(() => new BufferPool(8, -1)).toThrow(/maxIdle: must be a whole number >= 0/);
  });
});
