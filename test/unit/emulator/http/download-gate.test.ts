/**
 * The download slots (src/emulator/http/download-gate.ts): caps overall and per organization,
 * a freed slot to the oldest waiter whose organization has room, the bounded line, the wait's
 * deadline, a waiter that leaves, and the settings' checks.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DownloadGate } from '../../../../src/emulator/http/download-gate.js';
import { HttpError } from '../../../../src/emulator/http/http-errors.js';

const open = () => new AbortController().signal;

/** Whether `promise` settled by now (after the microtasks queued so far). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await Promise.resolve();
  await Promise.resolve();
  return done;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('DownloadGate', () => {
  it('grants at once within both caps, and a waiter of a full organization never blocks another', async () => {
    const gate = new DownloadGate({ maxActive: 3, maxActivePerTenant: 2 });
    const a1 = await gate.acquire('a', open());
    await gate.acquire('a', open());
    const a3 = gate.acquire('a', open());
    expect(await settled(a3)).toBe(false);
    // b has room: it passes a's waiter.
    const b1 = await gate.acquire('b', open());
    expect([gate.active(), gate.active('a'), gate.active('b'), gate.waiting('a')]).toEqual([3, 2, 1, 1]);
    // Full overall now: b waits too; the slot b gives back goes to a's older waiter only once a has room.
    const b2 = gate.acquire('b', open());
    b1();
    expect(await settled(b2)).toBe(true);
    expect(await settled(a3)).toBe(false);
    a1();
    expect(await settled(a3)).toBe(true);
    expect([gate.active(), gate.waiting()]).toEqual([3, 0]);
  });

  it('gives a slot back once however often release is called', async () => {
    const gate = new DownloadGate({ maxActive: 1, maxActivePerTenant: 1 });
    const release = await gate.acquire('a', open());
    release();
    release();
    expect(gate.active()).toBe(0);
    await gate.acquire('a', open());
    expect(gate.active('a')).toBe(1);
  });

  it('refuses with 503, Retry-After and the rule once the line is full, overall or per organization', async () => {
    const gate = new DownloadGate({
      maxActive: 1,
      maxActivePerTenant: 1,
      maxWaiting: 2,
      maxWaitingPerTenant: 1,
    });
    await gate.acquire('a', open());
    void gate.acquire('a', open()).catch(() => {});
    const perTenant = await gate.acquire('a', open()).catch((e: unknown) => e);
    expect(perTenant).toBeInstanceOf(HttpError);
    expect(perTenant).toMatchObject({ status: 503, code: 'downloads_busy', headers: { 'retry-after': '2' } });
    expect((perTenant as Error).message).toMatch(
      /per organization \(downloads\.maxActivePerTenant\).*maxWaitingPerTenant/,
    );
    void gate.acquire('b', open()).catch(() => {});
    const overall = await gate.acquire('c', open()).catch((e: unknown) => e);
    expect((overall as Error).message).toMatch(
      /at most 1 document downloads at once \(downloads\.maxActive\).*2 downloads wait already/,
    );
  });

  it('refuses at once with no waiting, and after maxWaitMs in line', async () => {
    const none = new DownloadGate({ maxActive: 1, maxWaitMs: 0 });
    await none.acquire('a', open());
    await expect(none.acquire('b', open())).rejects.toThrow(/waiting is off/);

    vi.useFakeTimers();
    const gate = new DownloadGate({ maxActive: 1, maxWaitMs: 5_000, retryAfterS: 7 });
    await gate.acquire('a', open());
    const waiting = gate.acquire('b', open()).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(gate.waiting()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    const error = await waiting;
    expect(error).toMatchObject({ status: 503, headers: { 'retry-after': '7' } });
    expect((error as Error).message).toMatch(/no slot was free within 5000 ms \(downloads\.maxWaitMs\)/);
    expect(gate.waiting()).toBe(0);
  });

  it('lets a waiter whose client hung up leave the line, its place to the next', async () => {
    const gate = new DownloadGate({ maxActive: 1 });
    const release = await gate.acquire('a', open());
    const quitting = new AbortController();
    const quitter = gate.acquire('b', quitting.signal).catch((e: unknown) => e);
    const next = gate.acquire('c', open());
    quitting.abort(new Error('client gone'));
    expect(((await quitter) as Error).message).toBe('client gone');
    expect(gate.waiting()).toBe(1);
    release();
    expect(await settled(next)).toBe(true);
    expect(gate.active('c')).toBe(1);
  });

  it('names the field and the rule of a bad setting', () => {
    expect(() => new DownloadGate({ maxActivePerTenant: 0 })).toThrow(
      'downloads.maxActivePerTenant: must be a whole number >= 1 (got 0)',
    );
    expect(() => new DownloadGate({ maxWaitMs: 1.5 })).toThrow(
      /downloads\.maxWaitMs: must be a whole number >= 0/,
    );
  });
});
