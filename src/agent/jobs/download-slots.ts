/**
 * The download-ahead slots of one printer's pipeline (job-loop.ts): a counting semaphore, so at
 * most `free` downloads (or fetches again) of that printer's jobs run at once; the others wait
 * for a slot in the order they asked. Nothing to clean up.
 */

/** Runs tasks with at most `free` at once. */
export class DownloadSlots {
  private waiting: (() => void)[] = [];
  constructor(private free: number) {}

  /** Runs `task` once a slot is free; the slot is given back when it settles. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}
