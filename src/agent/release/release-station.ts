/**
 * A release station: one card reader at one printer. A swipe is converted to the site's card
 * number, then a /TPFM/ session lists the user's jobs and releases them in the configured mode —
 * all at once, chosen on the terminal (only when X-FMP-Visible allows it), or one after another
 * while the card is present (removal cancels the running print by its ProcId). A session with no
 * activity for the idle timeout ends. Card numbers are registered with the Redactor and only
 * ever logged masked. With copy accounting (`copies`), a card also starts a copy session that
 * its removal (or the tracker's own timeout) ends, and released jobs are reported to it so their
 * pages are not recorded as copies. The station starts and stops the reader it is given, and
 * stops the copy accounting.
 */
import type { Clock } from '../../lib/clock.js';
import { ValidationError, errorMessage } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import { maskCardNumber, type Redactor } from '../../log/redaction.js';
import type { CardEvent, CardReader, SwipeReply } from '../../cardreader/card-reader.js';
import { applyTransforms, parseTransformChain, type TransformStep } from '../../cardreader/transform.js';
import type { ReleaseStationSettings } from './release-settings.js';
import type { ReleaseUi } from './release-ui.js';
import {
  type ReleaseClient,
  type ReleaseCopies,
  ReleaseSession,
  type SessionEnd,
  type SessionSummary,
} from './release-session.js';

export type { ReleaseClient, PrintRunLike, SessionSummary } from './release-session.js';
export type { ReleaseStationSettings } from './release-settings.js';

/** Copy accounting as the station drives it (copyjobs' CopyTracker fits). */
export interface StationCopies extends ReleaseCopies {
  /** A card (user id after conversion) is at the device. */
  cardPresent(user: string): Promise<void>;
  /** The card left the reader. */
  cardRemoved(): Promise<unknown>;
  stop(): Promise<void>;
}

/** What a station is given. */
export interface ReleaseStationDeps {
  settings: ReleaseStationSettings;
  reader: CardReader;
  client: ReleaseClient;
  clock: Clock;
  ui: ReleaseUi;
  logger: Logger;
  redactor: Redactor;
  /** Told about every card read (metrics); never given the card number. */
  onSwipe?: (outcome: 'session' | 'busy' | 'unreadable') => void;
  /** Copy-job accounting of this station, when configured. */
  copies?: StationCopies;
}

/** See the file comment. */
export class ReleaseStation {
  private chain: TransformStep[] = [];
  private unsubscribe: (() => void) | undefined;
  private session: ReleaseSession | undefined;
  private running: Promise<void> | undefined;
  private readonly summaryListeners = new Set<(summary: SessionSummary) => void>();
  private sessions = 0;

  constructor(private readonly deps: ReleaseStationDeps) {}

  /** Validates the settings, subscribes to the reader and starts it. */
  async start(): Promise<void> {
    const { settings, reader } = this.deps;
    this.chain = parseTransformChain(settings.transforms);
    if (settings.mode === 'while-present' && !reader.reportsRemoval) {
      throw new ValidationError(
        'mode',
        `while-present needs a reader that reports card removal (${reader.uri} does not)`,
      );
    }
    this.unsubscribe = reader.onEvent((event) => this.onReaderEvent(event));
    await reader.start();
    this.deps.logger.info({ mode: settings.mode, printer: settings.printer }, 'release station ready');
  }

  /** Ends a running session (cancelling its print), stops the reader, then the copy accounting. */
  async stop(): Promise<void> {
    this.session?.end('stopped');
    await this.running;
    this.unsubscribe?.();
    await this.deps.reader.stop();
    await this.deps.copies?.stop();
  }

  /** Adds a listener for finished sessions; returns its remover. */
  onSessionEnd(listener: (summary: SessionSummary) => void): () => void {
    this.summaryListeners.add(listener);
    return () => this.summaryListeners.delete(listener);
  }

  private onReaderEvent(event: CardEvent): void {
    if (event.type === 'card') this.onCard(event.raw, event.reply);
    else if (event.type === 'removed') this.cardRemoved();
    else if (event.type === 'disconnected') this.deps.ui.message('error', 'Card reader disconnected');
    else this.deps.logger.debug('card reader connected');
  }

  private onCard(raw: string, reply?: SwipeReply): void {
    const { redactor, ui, logger } = this.deps;
    redactor.add(raw);
    if (this.session) {
      this.deps.onSwipe?.('busy');
      reply?.(['busy: a release session is running at this station; this swipe was ignored']);
      this.session.touch();
      logger.debug({ cardMasked: maskCardNumber(raw) }, 'card ignored: a session is running');
      return;
    }
    let card: string;
    try {
      card = applyTransforms(this.chain, raw);
    } catch (error) {
      logger.warn(
        { cardMasked: maskCardNumber(raw), reason: redactor.scrubString(errorMessage(error)) },
        'card not convertible',
      );
      ui.message('error', 'Card not readable: check the conversion chain (printrelay card probe)');
      reply?.(['card not readable: check the conversion chain (printrelay card probe); nothing released']);
      this.deps.onSwipe?.('unreadable');
      return;
    }
    redactor.add(card);
    this.deps.onSwipe?.('session');
    this.begin(card, reply);
  }

  private cardRemoved(): void {
    this.session?.cardRemoved();
    this.deps.copies?.cardRemoved().catch((error: unknown) => this.copyFailure(error));
  }

  private copyFailure(error: unknown): void {
    this.deps.logger.error(
      { reason: this.deps.redactor.scrubString(errorMessage(error)) },
      'copy accounting failed',
    );
  }

  private begin(card: string, reply?: SwipeReply): void {
    const id = ++this.sessions;
    const logger = this.deps.logger.child({ session: id });
    this.deps.copies?.cardPresent(card).catch((error: unknown) => this.copyFailure(error));
    const session = new ReleaseSession({ ...this.deps, logger, card });
    this.session = session;
    this.running = session.run().then((summary) => {
      this.session = undefined;
      reply?.(session.report.length > 0 ? session.report : [endedWithout(summary.reason)]);
      for (const listener of this.summaryListeners) listener(summary);
    });
  }
}

/** The swipe report of a session that released, deleted and cancelled nothing. Pure. */
export function endedWithout(reason: SessionEnd): string {
  switch (reason) {
    case 'removed':
      return 'card removed before anything was released';
    case 'idle':
      return 'session ended after inactivity; nothing released';
    case 'stopped':
      return 'the station stopped; nothing released';
    default:
      return 'nothing released';
  }
}
