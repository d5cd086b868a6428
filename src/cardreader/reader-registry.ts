/**
 * Card readers picked by URI scheme: serial://, hid://, keyboard:, socket://. The registry makes
 * an unstarted reader with a child logger scoped to it; native modules load only when a reader
 * of that kind starts. The caller starts and stops what it gets.
 */
import type { Clock } from '../lib/clock.js';
import { ValidationError } from '../lib/errors.js';
import type { Logger } from '../log/logger.js';
import type { CardReader } from './card-reader.js';
import { type HidOpener, HidCardReader } from './hid/hid-reader.js';
import { KeyboardCardReader } from './keyboard/keyboard-reader.js';
import { findProfile, type ReaderProfile } from './reader-profiles.js';
import { type SerialPortFactory, SerialCardReader } from './serial/serial-reader.js';
import { SocketCardReader } from './socket/socket-reader.js';

/** What a reader factory gets. */
export interface CardReaderContext {
  logger: Logger;
  clock: Clock;
  profiles?: readonly ReaderProfile[];
  /** Overrides for hardware boundaries (tests). */
  hidOpen?: HidOpener;
  serialFactory?: SerialPortFactory;
  keyboardInput?: NodeJS.ReadableStream;
}

/** Makes a reader for a URI of its scheme. */
export type CardReaderFactory = (uri: string, context: CardReaderContext) => CardReader;

/** The profile a reader URI refers to: `?profile=<id>`, or for hid:// its USB ids. */
export function profileForUri(
  uri: string,
  profiles: readonly ReaderProfile[] = [],
): ReaderProfile | undefined {
  const query = new URLSearchParams(uri.split('?')[1] ?? '');
  const id = query.get('profile') ?? undefined;
  if (id) {
    const profile = findProfile(profiles, { id });
    if (!profile) throw new ValidationError('profile', `unknown reader profile "${id}"`);
    return profile;
  }
  const hid = /^hid:\/\/([0-9a-f]{4}):([0-9a-f]{4})/i.exec(uri);
  if (!hid) return undefined;
  return findProfile(profiles, {
    vendorId: Number.parseInt(hid[1]!, 16),
    productId: Number.parseInt(hid[2]!, 16),
  });
}

/** See the file comment. */
export class CardReaderRegistry {
  private readonly factories = new Map<string, CardReaderFactory>();

  /** Registers a scheme without its colon (`serial`). */
  register(scheme: string, factory: CardReaderFactory): void {
    this.factories.set(scheme.toLowerCase(), factory);
  }

  /** Makes an unstarted reader; an unknown scheme is a ValidationError naming it. */
  create(uri: string, context: CardReaderContext): CardReader {
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(uri)?.[1]?.toLowerCase();
    const factory = scheme ? this.factories.get(scheme) : undefined;
    if (!factory) {
      throw new ValidationError(
        'reader',
        `unknown card reader scheme "${scheme ?? uri}"; use ${[...this.factories.keys()].map((s) => `${s}:`).join(', ')}`,
      );
    }
    return factory(uri, { ...context, logger: context.logger.child({ reader: uri.split('?')[0] }) });
  }
}

/** A registry with the four built-in reader kinds. */
export function defaultCardReaderRegistry(): CardReaderRegistry {
  const registry = new CardReaderRegistry();
  registry.register('serial', (uri, ctx) => {
    const profile = profileForUri(uri, ctx.profiles);
    return new SerialCardReader(uri, {
      logger: ctx.logger,
      clock: ctx.clock,
      profile,
      factory: ctx.serialFactory,
    });
  });
  registry.register('hid', (uri, ctx) => {
    const profile = profileForUri(uri, ctx.profiles);
    const mode = profile?.connection === 'hid-raw' ? 'raw' : 'keyboard';
    return new HidCardReader(uri, {
      logger: ctx.logger,
      clock: ctx.clock,
      profile: profile ? { mode, layout: profile.raw } : undefined,
      open: ctx.hidOpen,
    });
  });
  registry.register('keyboard', (uri, ctx) => {
    const input = ctx.keyboardInput as import('node:stream').Readable | undefined;
    return new KeyboardCardReader(uri, { logger: ctx.logger, clock: ctx.clock, input });
  });
  registry.register(
    'socket',
    (uri, ctx) => new SocketCardReader(uri, { logger: ctx.logger, clock: ctx.clock }),
  );
  return registry;
}
