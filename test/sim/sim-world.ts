/**
 * Virtual time and what survives a crash. The run's timers are fake (vitest's fake timers): the
 * agent's sleeps and retries, and every simulated network or printer I/O completion, are timers
 * the scheduler fires one at a time. World events (a job arriving, a printer restarting, a
 * duplicated post arriving late) belong to the world, not to the agent: a crash clears every
 * timer, which freezes the dead agent's awaits forever, and re-arms the world's. Open transfers
 * to printers are registered, so a crash closes their connections as a dying process would.
 */
import { closeSync, ftruncateSync, openSync, rmSync } from 'node:fs';
import { vi } from 'vitest';
import type { Prng } from './prng.js';

/** Virtual start of every run. */
export const SIM_START = Date.UTC(2026, 0, 1);

interface WorldEvent {
  at: number;
  run: () => void;
}

export class SimWorld {
  /** Bumped at every crash: I/O of an older incarnation never completes. */
  incarnation = 0;
  private readonly events = new Map<number, WorldEvent>();
  private nextEvent = 1;
  private readonly transfers = new Map<number, () => void>();
  private nextTransfer = 1;

  constructor(readonly rng: Prng) {}

  now(): number {
    return Date.now();
  }

  /** Milliseconds since the run started. */
  elapsed(): number {
    return Date.now() - SIM_START;
  }

  /** Runs `run` at absolute virtual time `at` (or now when past), crash or not. */
  at(at: number, run: () => void): void {
    const id = this.nextEvent++;
    const event = { at, run };
    this.events.set(id, event);
    this.arm(id, event);
  }

  /** Waits `ms` of virtual time; never resolves when the agent crashes meanwhile. */
  delay(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  /** Registers an open connection; `cut` is what the far end sees if the process dies. */
  openTransfer(cut: () => void): () => void {
    const id = this.nextTransfer++;
    this.transfers.set(id, cut);
    return () => this.transfers.delete(id);
  }

  /**
   * The agent process dies: its connections close (the far end sees them cut), every timer goes
   * (its sleeps and pending I/O never complete), world events are armed again.
   */
  crash(): void {
    this.incarnation++;
    const cuts = [...this.transfers.values()];
    this.transfers.clear();
    for (const cut of cuts) cut();
    // Clearing the timers also resets the fake clock to where the run began: time must go on.
    const now = Date.now();
    vi.clearAllTimers();
    vi.setSystemTime(now);
    for (const [id, event] of this.events) this.arm(id, event);
  }

  private arm(id: number, event: WorldEvent): void {
    setTimeout(
      () => {
        if (this.events.delete(id)) event.run();
      },
      Math.max(0, event.at - Date.now()),
    );
  }
}

/** The spool folder's files, kept across crashes; files being written can tear at a crash. */
export class SimSpool {
  /**
   * Gives each file on disk the simulated file's length (a sparse file, no content), so what the
   * agent reads of the spool folder itself (the size of a document, in the reconcile) is true.
   */
  private mirror(path: string): void {
    const file = this.files.get(path);
    if (!file) {
      rmSync(path, { force: true });
      return;
    }
    const fd = openSync(path, 'w', 0o600);
    try {
      ftruncateSync(fd, file.length);
    } finally {
      closeSync(fd);
    }
  }

  private readonly files = new Map<string, Buffer>();
  /** Files a download is writing now, with the length of the last write. */
  private readonly writing = new Map<string, number>();

  size(path: string): number {
    return this.files.get(path)?.length ?? 0;
  }

  read(path: string): Buffer | undefined {
    return this.files.get(path);
  }

  truncate(path: string): void {
    this.files.set(path, Buffer.alloc(0));
    this.mirror(path);
  }

  append(path: string, chunk: Buffer): void {
    this.files.set(path, Buffer.concat([this.files.get(path) ?? Buffer.alloc(0), chunk]));
    this.writing.set(path, chunk.length);
    this.mirror(path);
  }

  delete(path: string): void {
    this.files.delete(path);
    this.mirror(path);
  }

  /** The download of `path` ended (whole or not): its writes are no longer in flight. */
  closed(path: string): void {
    this.writing.delete(path);
  }

  /**
   * A crash tears the last write of files being written: it keeps only a prefix, or its tail
   * holds garbage (a page written only in part).
   */
  tear(rng: Prng, chance: number): void {
    for (const [path, last] of this.writing) {
      const file = this.files.get(path);
      if (!file || !rng.chance(chance)) continue;
      const keep = file.length - rng.int(1, last);
      if (rng.chance(0.5)) this.files.set(path, file.subarray(0, keep));
      else {
        const garbled = Buffer.from(file);
        garbled.fill(0xee, keep);
        this.files.set(path, garbled);
      }
      this.mirror(path);
    }
    this.writing.clear();
  }
}
