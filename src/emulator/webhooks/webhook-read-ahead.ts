/**
 * The dispatcher's read-ahead of due deliveries, per endpoint, so that starting the next
 * delivery seldom needs a query. Queued deliveries are read in key order from where the last
 * read stopped (a cursor on the event id): rows already attempted lie behind the cursor, so such
 * a read needs no earlier write of outcomes, and it happens while `lowWater` deliveries are still
 * buffered, so the endpoint's connections stay busy during the read. When the buffer runs empty
 * (the queue's end was reached, or after forget()), the outcomes are written first and reading
 * starts over from the beginning of the queue, which finds anything the cursor passed by.
 * Holds no resources.
 */
import type { Clock } from '../../lib/clock.js';
import type { DueDelivery, WebhookDeliveryRepo } from './webhook-delivery-repo.js';

interface EndpointReadAhead {
  buffer: DueDelivery[];
  /** The last queued event id read; the next top-up reads after it. */
  cursor: string | undefined;
  /** The last read returned less than a batch: no top-up until the buffer is empty. */
  atEnd: boolean;
}

/** Due deliveries read ahead per endpoint. */
export class DueReadAhead {
  private readonly endpoints = new Map<string, EndpointReadAhead>();

  constructor(
    private readonly deliveries: WebhookDeliveryRepo,
    private readonly clock: Clock,
    /** Rows per read. */
    private readonly batch: number,
    /** Buffered deliveries at or below which a top-up read happens. */
    private readonly lowWater: number,
  ) {}

  /**
   * The endpoint's next delivery to start, or undefined when none is due. `busy` tells a
   * delivery that is in flight or whose outcome is not written yet (never started again);
   * `writeOutcomes` writes the waiting outcomes (before a read from the start of the queue).
   */
  next(
    endpointId: string,
    busy: (d: DueDelivery) => boolean,
    writeOutcomes: () => void,
  ): DueDelivery | undefined {
    let state = this.endpoints.get(endpointId);
    if (!state || state.buffer.length === 0) {
      writeOutcomes();
      state = { buffer: [], cursor: undefined, atEnd: false };
      this.endpoints.set(endpointId, state);
      this.read(endpointId, state, busy);
    } else if (state.buffer.length <= this.lowWater && !state.atEnd && onlyQueued(state.buffer)) {
      // Retries are read again by every read: a top-up waits until none is buffered.
      this.read(endpointId, state, busy);
    }
    return state.buffer.shift();
  }

  /** Forgets what is read ahead for the endpoint (after it, its events or its retry-all changed). */
  forget(endpointId: string): void {
    this.endpoints.delete(endpointId);
  }

  private read(endpointId: string, state: EndpointReadAhead, busy: (d: DueDelivery) => boolean): void {
    const rows = this.deliveries.dueFor(endpointId, this.clock.now(), this.batch, state.cursor);
    state.atEnd = rows.length < this.batch;
    for (const d of rows) {
      if (d.status === 'queued') state.cursor = d.eventId;
      if (!busy(d)) state.buffer.push(d);
    }
  }
}

function onlyQueued(buffer: readonly DueDelivery[]): boolean {
  for (const d of buffer) if (d.status !== 'queued') return false;
  return true;
}
