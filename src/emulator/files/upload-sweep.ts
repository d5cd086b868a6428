/**
 * The sweep of expired uploads: every SWEEP_INTERVAL_MS on the clock (a real timer, and at
 * PrepareUpload) the pending uploads whose URL expired are removed (record, blocks, partial
 * files), except while an upload of theirs is still streaming: uploads run inside
 * `whileWriting()`, and the next sweep takes what this one left.
 */
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../log/logger.js';
import type { StoredFileRepo } from './stored-file-repo.js';
import { UPLOAD_URL_TTL_MS } from './upload-signing.js';

/** How often expired uploads are swept, on the clock. */
export const SWEEP_INTERVAL_MS = 60 * 1000;

/** The sweep of one file store; `start()` sets its timer, `stop()` clears it. */
export class UploadSweep {
  /** Uploads streaming now, per file id: the sweep leaves their files alone. */
  private readonly writing = new Map<string, number>();
  private lastSweep = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly records: Pick<StoredFileRepo, 'expiredPending'>,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** Removes a file, its blocks and its record. */
    private readonly remove: (fileId: string) => Promise<void>,
  ) {}

  /** Sweeps now if the last sweep is SWEEP_INTERVAL_MS old on the clock. */
  async sweepIfDue(): Promise<void> {
    if (this.clock.now() - this.lastSweep >= SWEEP_INTERVAL_MS) await this.sweep();
  }

  /** Removes the expired pending uploads not streaming now; resolves to how many went. */
  async sweep(): Promise<number> {
    const now = this.clock.now();
    this.lastSweep = now;
    let swept = 0;
    for (const fileId of this.records.expiredPending(now - UPLOAD_URL_TTL_MS)) {
      if (this.writing.has(fileId)) continue;
      await this.remove(fileId);
      swept += 1;
    }
    if (swept > 0) this.logger.info({ swept }, 'expired uploads and their blocks deleted');
    return swept;
  }

  /** Runs an upload of the file, marked as streaming so the sweep leaves the file alone. */
  async whileWriting<T>(fileId: string, run: () => Promise<T>): Promise<T> {
    this.writing.set(fileId, (this.writing.get(fileId) ?? 0) + 1);
    try {
      return await run();
    } finally {
      const left = (this.writing.get(fileId) ?? 1) - 1;
      if (left > 0) this.writing.set(fileId, left);
      else this.writing.delete(fileId);
    }
  }

  /** Sweeps on a timer (unref'd) whenever a sweep is due. */
  start(): void {
    this.timer = setInterval(() => {
      this.sweepIfDue().catch((error: unknown) =>
        this.logger.error({ err: error }, 'sweeping expired uploads failed'),
      );
    }, SWEEP_INTERVAL_MS).unref();
  }

  /** Stops the timer. */
  stop(): void {
    clearInterval(this.timer);
  }
}
