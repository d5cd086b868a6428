/**
 * The kept-open connections of one printer (one pool per IppClient): at most `maxConnections`
 * at a time (further requests wait their turn), idle ones kept for `idleMs` or until 1 s before
 * the printer's announced `Keep-Alive: timeout`, whichever is sooner, and dropped as soon as the
 * printer closes them. close() ends them all, idle or busy; the pool may still be used after it.
 */
import { IppConnection } from './ipp-connection.js';
import type { IppTarget } from './ipp-target.js';

/** A connection given to one exchange; `reused` when it carried earlier ones. */
export type ConnectionReady = (connection: IppConnection, reused: boolean) => void;

/**
 * A connection's bookkeeping in the pool, made once per connection: its idle timer (refreshed on
 * each release, not made anew; it does nothing while the connection is busy) and its idle deadline.
 */
interface Entry {
  connection: IppConnection;
  timer: NodeJS.Timeout | undefined;
  /** The delay the timer was made with (a printer's Keep-Alive may shorten it later). */
  timerMs: number;
  /** When an idle connection is given up (ms since the epoch); undefined while busy. */
  idleUntil: number | undefined;
}

export class IppConnectionPool {
  /** Idle connections, the most recently used last. */
  private readonly idle: Entry[] = [];
  private readonly all = new Map<IppConnection, Entry>();
  private readonly waiting: ConnectionReady[] = [];

  constructor(
    private readonly target: IppTarget,
    private readonly settings: { maxConnections: number; idleMs: number },
  ) {}

  /**
   * Calls `ready` with a connection for one exchange: an idle one (newest first), else a new one
   * while under maxConnections, else the first that comes free. Returns a function that gives up
   * the wait (the exchange ended before it had a connection); the exchange gives the connection
   * back with release() or discard().
   */
  acquire(ready: ConnectionReady): () => void {
    const kept = this.idle.pop();
    if (kept) {
      kept.idleUntil = undefined;
      ready(kept.connection, true);
      return noop;
    }
    if (this.all.size < this.settings.maxConnections) {
      ready(this.open(), false);
      return noop;
    }
    this.waiting.push(ready);
    return () => {
      const at = this.waiting.indexOf(ready);
      if (at >= 0) this.waiting.splice(at, 1);
    };
  }

  /**
   * Gives a connection back after an exchange. `reusable` (the answer was read whole, it allows
   * keep-alive and the request was written whole before it) keeps it open for the next one.
   */
  release(connection: IppConnection, reusable: boolean, keepAliveMs?: number): void {
    const entry = this.all.get(connection);
    if (!reusable || connection.closed || !entry) {
      this.discard(connection);
      return;
    }
    const next = this.waiting.shift();
    if (next) {
      next(connection, true);
      return;
    }
    const idleMs = Math.min(this.settings.idleMs, keepAliveMs !== undefined ? keepAliveMs - 1_000 : Infinity);
    if (idleMs <= 0) {
      this.discard(connection);
      return;
    }
    entry.idleUntil = Date.now() + idleMs;
    if (entry.timer && entry.timerMs === idleMs) entry.timer.refresh();
    else {
      clearTimeout(entry.timer);
      entry.timerMs = idleMs;
      entry.timer = setTimeout(() => this.expire(entry), idleMs).unref();
    }
    this.idle.push(entry);
  }

  /** Ends a connection that cannot carry another request; a waiting exchange gets a new one. */
  discard(connection: IppConnection): void {
    connection.destroy();
    this.forget(connection);
    const next = this.waiting.shift();
    if (next) next(this.open(), false);
  }

  /** Ends every connection, idle or in use (an exchange on one fails as a network failure). */
  close(): void {
    for (const entry of this.all.values()) {
      clearTimeout(entry.timer);
      entry.connection.destroy();
    }
    this.idle.length = 0;
    this.all.clear();
  }

  private open(): IppConnection {
    const connection = IppConnection.connect(this.target);
    this.all.set(connection, { connection, timer: undefined, timerMs: 0, idleUntil: undefined });
    // A connection the printer closed leaves the pool at once, idle or not.
    connection.socket.once('close', () => this.forget(connection));
    return connection;
  }

  /** The idle timer fired: gives the connection up if it is still idle and its time is over. */
  private expire(entry: Entry): void {
    if (entry.idleUntil === undefined) return;
    const left = entry.idleUntil - Date.now();
    if (left > 0) {
      entry.timerMs = left;
      entry.timer = setTimeout(() => this.expire(entry), left).unref();
      return;
    }
    entry.connection.destroy();
    this.forget(entry.connection);
  }

  private forget(connection: IppConnection): void {
    const entry = this.all.get(connection);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.all.delete(connection);
    const at = this.idle.indexOf(entry);
    if (at >= 0) this.idle.splice(at, 1);
  }
}

function noop(): void {}
