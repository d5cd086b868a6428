/**
 * `keyboard:`: a keyboard-wedge reader typing into the agent's terminal (or any text stream):
 * one card number per line. The stream is given in (default: standard input); stop() detaches
 * from it but does not close it, since the process owns standard input.
 */
import type { Readable } from 'node:stream';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../log/logger.js';
import { type CardEvent, CardEventHub, type CardReader } from '../card-reader.js';

/** See the file comment. */
export class KeyboardCardReader implements CardReader {
  readonly reportsRemoval = false;
  private readonly hub = new CardEventHub();
  private pending = '';
  private readonly onData = (chunk: Buffer | string) => this.take(chunk.toString());

  constructor(
    readonly uri: string,
    private readonly deps: { logger: Logger; clock: Clock; input?: Readable },
  ) {}

  async start(): Promise<void> {
    const input = this.deps.input ?? process.stdin;
    input.on('data', this.onData);
    input.resume();
    this.deps.logger.info('keyboard card reader listening');
    this.hub.emit({ type: 'connected', at: this.deps.clock.now() });
  }

  async stop(): Promise<void> {
    const input = this.deps.input ?? process.stdin;
    input.off('data', this.onData);
    input.pause();
  }

  onEvent(listener: (event: CardEvent) => void): () => void {
    return this.hub.add(listener);
  }

  private take(text: string): void {
    this.pending += text;
    const lines = this.pending.split(/\r?\n|\r/);
    this.pending = lines.pop() ?? '';
    for (const line of lines) {
      const raw = line.trim();
      if (raw) this.hub.emit({ type: 'card', raw, at: this.deps.clock.now() });
    }
  }
}
