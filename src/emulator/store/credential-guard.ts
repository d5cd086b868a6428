/**
 * Every check of a presented secret (client secret, user password, device password) goes
 * through one CredentialGuard: it refuses at once (TooManyRequestsError, HTTP 429 with
 * Retry-After) while the subject (a client id, an e-mail, a pull printer) or the source address
 * has too many recent failures, then verifies with the SecretHasher off the event loop, and
 * counts the result. A failure is counted before the check runs (and taken back on success), so
 * parallel guesses cannot all start before the first one fails. A subject that does not exist
 * pays the same scrypt, so neither timing nor the answer tells which names exist. Every failed
 * or refused attempt is answered only after `failureDelayMs` (a timer, not the event loop), so a
 * guessing script gets a handful of answers per second per connection, however fast it sends.
 * Built once per emulator (app.ts); nothing to clean up.
 */
import { sleep } from '../../lib/abort.js';
import type { Clock } from '../../lib/clock.js';
import { type FailureLimits, FailureThrottle } from '../../lib/failure-throttle.js';
import type { SecretHasher } from './secret-hash.js';

/** Failure limits per subject and per source address, and the delay of every failed answer. */
export interface CredentialLimits {
  perSubject: FailureLimits;
  perSource: FailureLimits;
  failureDelayMs: number;
  /**
   * Unknown names (card numbers, user ids) presented with a correct device secret, per device
   * (default: defaultUnknownNameLimits).
   */
  unknownNamesPerDevice?: FailureLimits;
}

/** 10 unknown card numbers at one device in 5 minutes lock its card look-ups for 5 minutes. */
export const defaultUnknownNameLimits: FailureLimits = {
  maxFailures: 10,
  windowMs: 5 * 60_000,
  lockMs: 5 * 60_000,
  maxKeys: 10_000,
};

export const defaultCredentialLimits: CredentialLimits = {
  perSubject: { maxFailures: 5, windowMs: 5 * 60_000, lockMs: 5 * 60_000, maxKeys: 10_000 },
  perSource: { maxFailures: 20, windowMs: 5 * 60_000, lockMs: 5 * 60_000, maxKeys: 10_000 },
  failureDelayMs: 500,
  unknownNamesPerDevice: defaultUnknownNameLimits,
};

/** One presented secret: who it claims to be, where it came from, and the stored hash (if any). */
export interface CredentialAttempt {
  /** e.g. `client:<id>`, `user:<email>`, `device:<org>/<printer>`. */
  subject: string;
  /** The request's source address. */
  source: string;
  secret: string;
  /** The stored scrypt hash; undefined when the subject does not exist. */
  stored: string | undefined;
}

/** See the file comment. */
export class CredentialGuard {
  private readonly subjects: FailureThrottle;
  private readonly sources: FailureThrottle;
  private readonly names: FailureThrottle;

  constructor(
    readonly hasher: SecretHasher,
    clock: Clock,
    private readonly limits: CredentialLimits = defaultCredentialLimits,
    /** Waits `ms` (a timer); injectable for tests. */
    private readonly wait: (ms: number) => Promise<void> = (ms) => sleep(ms),
  ) {
    this.subjects = new FailureThrottle(clock, limits.perSubject, 'sign-in attempts for this account');
    this.sources = new FailureThrottle(clock, limits.perSource, 'sign-in attempts from this address');
    this.names = new FailureThrottle(
      clock,
      limits.unknownNamesPerDevice ?? defaultUnknownNameLimits,
      'card numbers at this device',
    );
  }

  /**
   * Before a name (card number, user id) presented by an authenticated device is looked up:
   * throws TooManyRequestsError (after the failure delay) while the device's look-ups are locked,
   * whether or not the name exists, so a locked device learns nothing about any card.
   */
  async beginNameLookup(device: string): Promise<void> {
    try {
      this.names.check(device);
    } catch (error) {
      await this.wait(this.limits.failureDelayMs);
      throw error;
    }
  }

  /**
   * Counts a name the device presented that names no user, and answers after the failure
   * delay, as a wrong secret is. A known name never clears the count (a guesser who knows one
   * card cannot reset it); failures leave the window with time.
   */
  async nameUnknown(device: string): Promise<void> {
    this.names.fail(device);
    await this.wait(this.limits.failureDelayMs);
  }

  /**
   * Starts an attempt: throws TooManyRequestsError (after the failure delay) while the subject
   * or the source is locked, else counts it as a failure until finish() says otherwise.
   */
  async begin(subject: string, source: string): Promise<void> {
    try {
      this.subjects.check(subject);
      this.sources.check(`source:${source}`);
    } catch (error) {
      await this.wait(this.limits.failureDelayMs);
      throw error;
    }
    this.subjects.fail(subject);
    this.sources.fail(`source:${source}`);
  }

  /** Ends an attempt begun with begin(): a success clears the subject; a failure is delayed. */
  async finish(subject: string, source: string, ok: boolean): Promise<void> {
    if (ok) {
      this.subjects.succeed(subject);
      this.sources.forgive(`source:${source}`);
      return;
    }
    await this.wait(this.limits.failureDelayMs);
  }

  /** True when the secret matches: begin(), scrypt off the event loop, finish(). */
  async verify(attempt: CredentialAttempt): Promise<boolean> {
    await this.begin(attempt.subject, attempt.source);
    let ok = false;
    try {
      ok =
        attempt.stored === undefined
          ? await this.hasher.verifyUnknown(attempt.secret)
          : await this.hasher.verify(attempt.secret, attempt.stored);
    } finally {
      await this.finish(attempt.subject, attempt.source, ok);
    }
    return ok;
  }
}
