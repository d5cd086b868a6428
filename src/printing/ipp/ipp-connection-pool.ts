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

interface Idle {
  connection: IppConnection;
  timer: NodeJS.Timeout;
  onClose: () => void;
}

export class IppConnectionPool {
  private readonly idle: Idle[] = [];
  private readonly all = new Set<IppConnection>();
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
      clearTimeout(kept.timer);
      kept.connection.socket.off('close', kept.onClose);
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
    if (!reusable || connection.closed) {
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
    const entry: Idle = {
      connection,
      timer: setTimeout(() => this.drop(entry), idleMs).unref(),
      onClose: () => this.drop(entry),
    };
    connection.socket.once('close', entry.onClose);
    this.idle.push(entry);
  }

  /** Ends a connection that cannot carry another request; a waiting exchange gets a new one. */
  discard(connection: IppConnection): void {
    connection.destroy();
    this.all.delete(connection);
    const next = this.waiting.shift();
    if (next) next(this.open(), false);
  }

  /** Ends every connection, idle or in use (an exchange on one fails as a network failure). */
  close(): void {
    for (const entry of this.idle.splice(0)) clearTimeout(entry.timer);
    for (const connection of this.all) connection.destroy();
    this.all.clear();
  }

  private open(): IppConnection {
    const connection = IppConnection.connect(this.target);
    this.all.add(connection);
    connection.socket.once('close', () => this.all.delete(connection));
    return connection;
  }

  private drop(entry: Idle): void {
    clearTimeout(entry.timer);
    const at = this.idle.indexOf(entry);
    if (at >= 0) this.idle.splice(at, 1);
    this.all.delete(entry.connection);
    entry.connection.destroy();
  }
}

function noop(): void {}
