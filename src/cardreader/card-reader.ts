/**
 * The CardReader interface the release station uses, and a small base that keeps listeners.
 * A reader delivers raw card strings as read; conversion to the site's card number is the
 * transform chain's job (transform.ts). Readers that can tell when a card leaves the field say so
 * with `reportsRemoval` and emit `removed`. Readers recover from unplugging on their own and
 * report it with `disconnected` / `connected`. Whoever calls start() calls stop().
 */

/** Something a reader saw. `at` is from the reader's clock (ms since the epoch). */
export type CardEvent =
  | { type: 'card'; raw: string; at: number; reply?: SwipeReply }
  | { type: 'removed'; at: number }
  | { type: 'connected'; at: number }
  | { type: 'disconnected'; at: number; reason: string };

/**
 * Given with a card by a reader that can answer the one who swiped (socket://): the station
 * calls it once with what the swipe did, one line each (released jobs, nothing to release, ...).
 */
export type SwipeReply = (lines: readonly string[]) => void;

/** A card reader picked by URI (serial://, hid://, keyboard:, socket://). */
export interface CardReader {
  /** The URI it was made from (never holds secrets). */
  readonly uri: string;
  /** Whether `removed` events come (needed for release while the card is present). */
  readonly reportsRemoval: boolean;
  /** Opens the device; resolves once it listens (or, for unplugged devices, keeps retrying). */
  start(): Promise<void>;
  /** Closes the device and stops retrying. */
  stop(): Promise<void>;
  /** Adds a listener; returns a function that removes it. */
  onEvent(listener: (event: CardEvent) => void): () => void;
}

/** Listener bookkeeping shared by the readers. */
export class CardEventHub {
  private readonly listeners = new Set<(event: CardEvent) => void>();

  /** Adds a listener; returns its remover. */
  add(listener: (event: CardEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Calls every listener; one throwing listener does not stop the others. */
  emit(event: CardEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A listener's failure is its own; the reader keeps delivering to the rest.
      }
    }
  }
}
