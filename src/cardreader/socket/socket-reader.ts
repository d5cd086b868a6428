/**
 * `socket://host:port`: a reader that listens on TCP for swipes sent by `printrelay swipe` (or
 * any tool): one line per event — `<card>` or `swipe <card>` for a card, `remove` for its
 * removal — answered with `ok` or `error <reason>`. `wait <card>` is a card whose sender also
 * wants the outcome: after `ok` the reader sends one `result <text>` line per thing the station
 * did with the swipe (released jobs with their pages, nothing to release, card not accepted, ...)
 * and then `done` (docs/card-readers.md). Used for demos, kiosks and tests.
 * The reader owns its server; stop() closes it and every open connection.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { Clock } from '../../lib/clock.js';
import { ValidationError } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import { type CardEvent, CardEventHub, type CardReader } from '../card-reader.js';

/** Host and port of a socket:// URI. */
export function parseSocketUri(uri: string): { host: string; port: number } {
  const url = new URL(uri);
  const port = Number(url.port);
  if (
    url.protocol !== 'socket:' ||
    !url.hostname ||
    url.port === '' ||
    !Number.isInteger(port) ||
    port < 0 ||
    port > 65535
  ) {
    throw new ValidationError('reader', `"${uri}" must look like socket://127.0.0.1:4711`);
  }
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port };
}

/** One line of the swipe protocol, parsed. */
export function parseSwipeLine(
  line: string,
): { type: 'card'; raw: string; wait: boolean } | { type: 'removed' } {
  const text = line.trim();
  if (/^remove(d)?$/i.test(text)) return { type: 'removed' };
  const wait = /^wait\s+/i.test(text);
  const raw = text.replace(/^(swipe|wait)\s+/i, '');
  if (!raw || /\s/.test(raw) || raw.length > 128) {
    throw new ValidationError(
      'swipe',
      'send "<card>", "swipe <card>", "wait <card>" or "remove" (card: 1-128 characters, no spaces)',
    );
  }
  return { type: 'card', raw, wait };
}

/** See the file comment. */
export class SocketCardReader implements CardReader {
  readonly reportsRemoval = true;
  private readonly hub = new CardEventHub();
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  constructor(
    readonly uri: string,
    private readonly deps: { logger: Logger; clock: Clock },
  ) {}

  /** The port actually bound (useful with port 0); undefined before start(). */
  get port(): number | undefined {
    const address = this.server?.address();
    return typeof address === 'object' && address ? address.port : undefined;
  }

  async start(): Promise<void> {
    const { host, port } = parseSocketUri(this.uri);
    const server = createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.deps.logger.info({ port: this.port }, 'socket card reader listening');
    this.hub.emit({ type: 'connected', at: this.deps.clock.now() });
  }

  /** Closes the server; open connections get what was written to them (at most 500 ms), then end. */
  async stop(): Promise<void> {
    await Promise.all([...this.sockets].map((socket) => flushAndClose(socket)));
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise((resolve) => server.close(resolve));
  }

  onEvent(listener: (event: CardEvent) => void): () => void {
    return this.hub.add(listener);
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.setEncoding('utf8');
    let pending = '';
    socket.on('data', (text: string) => {
      pending += text;
      const lines = pending.split(/\r?\n/);
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) this.handle(socket, line);
    });
    socket.on('error', (error) => this.deps.logger.debug({ err: error }, 'swipe connection failed'));
    socket.on('close', () => this.sockets.delete(socket));
  }

  private handle(socket: Socket, line: string): void {
    try {
      const event = parseSwipeLine(line);
      const at = this.deps.clock.now();
      socket.write('ok\n');
      if (event.type === 'removed') this.hub.emit({ type: 'removed', at });
      else if (!event.wait) this.hub.emit({ type: 'card', raw: event.raw, at });
      else this.hub.emit({ type: 'card', raw: event.raw, at, reply: (lines) => answer(socket, lines) });
    } catch (error) {
      socket.write(`error ${(error as Error).message}\n`);
    }
  }
}

/** Ends a connection once its pending writes are out (at most 500 ms), then destroys it. */
function flushAndClose(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    const close = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    };
    const timer = setTimeout(close, 500);
    socket.end(close);
  });
}

/** Writes a station's outcome to a waiting sender (gone senders are skipped). */
function answer(socket: Socket, lines: readonly string[]): void {
  if (!socket.writable) return;
  const text = lines.map((l) => `result ${l.replace(/[\r\n]+/g, ' ')}\n`).join('');
  socket.write(`${text}done\n`);
}

/**
 * Sends `wait <card>` and resolves with the station's outcome lines (without `result `). Rejects
 * with the reader's error, or when the outcome does not come within `timeoutMs` (the swipe itself
 * was delivered once `ok` came). The connection is closed before it settles.
 */
export async function swipeAndWait(uri: string, card: string, timeoutMs: number): Promise<string[]> {
  const { host, port } = parseSocketUri(uri);
  return new Promise<string[]>((resolve, reject) => {
    const socket = createConnection({ host, port });
    socket.setEncoding('utf8');
    let delivered = false;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(
          delivered
            ? `the card reached the reader, but its station said nothing about it within ${timeoutMs / 1000} s`
            : `no answer from ${host}:${port} within ${timeoutMs / 1000} s`,
        ),
      );
    }, timeoutMs);
    const lines: string[] = [];
    let pending = '';
    let settled = false;
    const finish = (error?: Error) => {
      settled = true;
      clearTimeout(timer);
      socket.end();
      if (error) reject(error);
      else resolve(lines);
    };
    socket.on('connect', () => socket.write(`wait ${card}\n`));
    socket.on('data', (text: string) => {
      pending += text;
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      for (const part of parts.map((p) => p.trim())) {
        if (part === 'ok') delivered = true;
        else if (part === 'done') return finish();
        else if (part.startsWith('result ')) lines.push(part.slice('result '.length));
        else if (part.startsWith('error'))
          return finish(new Error(part.replace(/^error\s*/, '') || 'reader refused the swipe'));
      }
    });
    socket.on('error', (error) => {
      settled = true;
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      if (!settled) finish(new Error(`${host}:${port} closed the connection before its station answered`));
    });
  });
}

/**
 * Sends one swipe line (a card number, or `remove`) to a socket reader and waits for its answer.
 * Rejects with the reader's error text. The connection is closed before it resolves.
 */
export async function sendSwipe(uri: string, line: string, timeoutMs = 5000): Promise<void> {
  const { host, port } = parseSocketUri(uri);
  await new Promise<void>((resolve, reject) => {
    const socket = createConnection({ host, port });
    socket.setEncoding('utf8');
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no answer from ${host}:${port}`)));
    let answer = '';
    socket.on('connect', () => socket.write(`${line}\n`));
    socket.on('data', (text: string) => {
      answer += text;
      if (!answer.includes('\n')) return;
      socket.end();
      const reply = answer.trim();
      if (reply === 'ok') resolve();
      else reject(new Error(reply.replace(/^error\s*/, '') || 'reader refused the swipe'));
    });
    socket.on('error', reject);
  });
}
