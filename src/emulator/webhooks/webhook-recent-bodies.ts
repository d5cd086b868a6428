/**
 * The bodies of the most recently queued webhook events, so that the delivery worker's reads of
 * queued deliveries need only the key index (a row's body is read from its table page, which
 * costs several times the key). Only a cache: the queue and its bodies live in SQLite, a body
 * never changes once queued, and an id whose row is gone (or whose transaction was rolled back)
 * is simply never asked for. Bounded by count and by characters; the oldest entries go first.
 * Holds no resources.
 */

/** A queued event's body and the time it was queued at (its due time). */
export interface RecentBody {
  body: string;
  queuedAt: number;
}

/** Most entries kept. */
const MAX_ENTRIES = 4096;
/** Most characters of bodies kept (about 4 MB). */
const MAX_CHARS = 4 * 1024 * 1024;

/** Bodies of recently queued events by event id. */
export class RecentEventBodies {
  private readonly entries = new Map<string, RecentBody>();
  private chars = 0;

  constructor(
    private readonly maxEntries = MAX_ENTRIES,
    private readonly maxChars = MAX_CHARS,
  ) {}

  /** Remembers the body of an event just queued, dropping the oldest ones past the bounds. */
  remember(eventId: string, body: string, queuedAt: number): void {
    if (body.length > this.maxChars || this.entries.has(eventId)) return;
    this.entries.set(eventId, { body, queuedAt });
    this.chars += body.length;
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.chars <= this.maxChars) break;
      this.entries.delete(oldest);
      this.chars -= entry.body.length;
    }
  }

  /** The event's body and queue time, when still kept. */
  get(eventId: string): RecentBody | undefined {
    return this.entries.get(eventId);
  }

  /** How many bodies are kept (tests). */
  get size(): number {
    return this.entries.size;
  }
}
