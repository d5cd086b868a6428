/**
 * Buffers of one size, handed out and taken back, so that a large answer is written from memory
 * the emulator reuses instead of new memory per read that the garbage collector has to find
 * (docs/performance.md, *Round 5: the large document*). A taker gives every buffer back once
 * nothing reads it any more (its write's callback ran or its connection closed); the pool keeps
 * at most `maxIdle` of them for the next taker and leaves the rest to the collector, so idle
 * memory stays bounded however many answers ran at once.
 */

/** A pool of `size`-byte buffers. Nothing to start or stop. */
export class BufferPool {
  private readonly idle: Buffer[] = [];
  private out = 0;
  private made = 0;
  private readonly drainWaiters: (() => void)[] = [];

  constructor(
    /** Bytes of each buffer. */
    readonly size: number,
    /** Most idle buffers kept for reuse. */
    private readonly maxIdle: number,
  ) {
    if (!Number.isInteger(size) || size <= 0) throw new RangeError('size: must be a positive whole number');
    if (!Number.isInteger(maxIdle) || maxIdle < 0)
      throw new RangeError('maxIdle: must be a whole number >= 0');
  }

  /** A buffer of `size` bytes (its old contents included); the caller gives it back. */
  take(): Buffer {
    this.out += 1;
    const reused = this.idle.pop();
    if (reused) return reused;
    this.made += 1;
    return Buffer.allocUnsafeSlow(this.size);
  }

  /** Takes a buffer back; the caller no longer reads or writes it. */
  give(buffer: Buffer): void {
    if (this.out === 0) throw new Error('a buffer was given back that the pool did not hand out');
    this.out -= 1;
    if (this.idle.length < this.maxIdle && buffer.length === this.size) this.idle.push(buffer);
    if (this.out === 0) for (const wake of this.drainWaiters.splice(0)) wake();
  }

  /** Buffers handed out and not yet given back. */
  get inUse(): number {
    return this.out;
  }

  /** Buffers kept for reuse. */
  get idleCount(): number {
    return this.idle.length;
  }

  /** Buffers allocated since the pool was made (reuse keeps this low). */
  get allocated(): number {
    return this.made;
  }

  /** Resolves once every buffer handed out is back. */
  drained(): Promise<void> {
    if (this.out === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }
}
