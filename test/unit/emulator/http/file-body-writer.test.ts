import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BufferPool } from '../../../../src/emulator/http/buffer-pool.js';
import { writeFileBody } from '../../../../src/emulator/http/file-body-writer.js';
import { SLOW_CHUNK_BYTES } from '../../../../src/emulator/http/response-shaping.js';

const dir = mkdtempSync(join(tmpdir(), 'file-body-writer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const content = Buffer.from(Array.from({ length: 100_000 }, (_, i) => (i * 13 + (i >> 8)) % 256));
const path = join(dir, 'document.bin');
writeFileSync(path, content);

/**
 * A response whose socket is slow: each write completes `delayMs` later, and only then are its
 * bytes taken (copied), as a socket reads a buffer until its write's callback. Counts the writes
 * in flight at once. `closeAfterWrites` makes its client hang up after that many writes.
 */
class SlowResponse extends EventEmitter {
  received: Buffer[] = [];
  inFlight = 0;
  mostInFlight = 0;
  writes = 0;
  ended = false;
  destroyed = false;
  constructor(private readonly options: { delayMs: number; closeAfterWrites?: number }) {
    super();
  }
  write(chunk: Buffer, callback: (error?: Error | null) => void): boolean {
    this.writes += 1;
    this.inFlight += 1;
    this.mostInFlight = Math.max(this.mostInFlight, this.inFlight);
    setTimeout(() => {
      this.inFlight -= 1;
      if (this.destroyed) return;
      this.received.push(Buffer.from(chunk));
      callback();
      if (this.writes === this.options.closeAfterWrites) this.destroy();
    }, this.options.delayMs);
    return false;
  }
  end(): void {
    this.ended = true;
    setImmediate(() => this.emit('close'));
  }
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    setImmediate(() => this.emit('close'));
  }
  body(): Buffer {
    return Buffer.concat(this.received);
  }
}

async function run(
  res: SlowResponse,
  range: { start: number; end: number },
  pool: BufferPool,
  shaping: Parameters<typeof writeFileBody>[4] = null,
) {
  const handle = await open(path, 'r');
  try {
    return await writeFileBody(res as unknown as ServerResponse, handle, range, pool, shaping);
  } finally {
    await handle.close();
  }
}

describe('writeFileBody', () => {
  it('reads into a buffer again only after its write completed, so a slow socket gets the right bytes', async () => {
    const pool = new BufferPool(4096, 2);
    const res = new SlowResponse({ delayMs: 5 });
    const outcome = await run(res, { start: 10, end: 60_009 }, pool);
    expect(outcome).toEqual({ kind: 'complete', bytes: 60_000 });
    expect(res.body().equals(content.subarray(10, 60_010))).toBe(true);
    expect([res.ended, res.mostInFlight]).toEqual([true, 1]);
    expect([pool.inUse, pool.allocated, pool.idleCount]).toEqual([0, 2, 2]);
  });

  it('reuses the pool between bodies and keeps at most its idle cap', async () => {
    const pool = new BufferPool(8192, 1);
    await Promise.all([
      run(new SlowResponse({ delayMs: 1 }), { start: 0, end: 99_999 }, pool),
      run(new SlowResponse({ delayMs: 1 }), { start: 50_000, end: 99_999 }, pool),
    ]);
    expect([pool.inUse, pool.allocated, pool.idleCount]).toEqual([0, 4, 1]);
    await run(new SlowResponse({ delayMs: 1 }), { start: 0, end: 9 }, pool);
    expect(pool.allocated).toBe(5);
  });

  it('stops when the client hangs up and gives the buffers back', async () => {
    const pool = new BufferPool(4096, 2);
    const res = new SlowResponse({ delayMs: 1, closeAfterWrites: 3 });
    const outcome = await run(res, { start: 0, end: 99_999 }, pool);
    expect(outcome).toEqual({ kind: 'aborted', bytes: 3 * 4096 });
    expect([res.ended, pool.inUse]).toEqual([false, 0]);
  });

  it('cut: writes half the body, then destroys the response', async () => {
    const pool = new BufferPool(4096, 2);
    const res = new SlowResponse({ delayMs: 1 });
    const outcome = await run(res, { start: 1, end: 10_001 }, pool, { kind: 'cut' });
    expect(outcome).toEqual({ kind: 'cut', bytes: 5001 });
    expect(res.body().equals(content.subarray(1, 5002))).toBe(true);
    expect([res.ended, res.destroyed, pool.inUse]).toEqual([false, true, 0]);
  });

  it('slow: writes pieces of SLOW_CHUNK_BYTES, the bytes intact', async () => {
    const pool = new BufferPool(65_536, 2);
    const res = new SlowResponse({ delayMs: 0 });
    const outcome = await run(res, { start: 0, end: 99_999 }, pool, { kind: 'slow', pauseMs: 1 });
    expect(outcome).toEqual({ kind: 'complete', bytes: 100_000 });
    expect(res.received.every((piece) => piece.length <= SLOW_CHUNK_BYTES)).toBe(true);
    expect(res.body().equals(content)).toBe(true);
  });

  it('fails, destroying the response, when the file is shorter than the range', async () => {
    const pool = new BufferPool(4096, 2);
    const res = new SlowResponse({ delayMs: 0 });
    const outcome = await run(res, { start: 90_000, end: 109_999 }, pool);
    expect(outcome.kind).toBe('failed');
    expect(outcome.bytes).toBe(10_000 - (10_000 % 4096));
    expect([res.destroyed, pool.inUse]).toEqual([true, 0]);
  });
});
