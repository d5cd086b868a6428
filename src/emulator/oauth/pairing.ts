/**
 * The pairing-code grant (field notes; RFC 8628 polling semantics): a client without a browser
 * asks for a pairing code, a person signs in at `auth_url` and binds the code to their account,
 * and the client polls the token endpoint with grant_type=pairing_code. Polls before the binding
 * answer authorization_pending, polls faster than the interval slow_down (the interval grows by
 * 5 s), polls after expiry expired_token, a denied pairing access_denied; an approved one gives a
 * normal token response once. tenant_mode single (spec C): a person of another organization is
 * refused when binding (access_denied on the page) and the device's polls then answer
 * unauthorized_client, the token endpoint's error for that rule. `approvePairing(code, email)`
 * binds without a browser (the demo).
 * Time from the injected clock; stateless over the store, nothing to clean up.
 */
import { randomInt, randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import { grantableScopes } from '../../protocol/oauth-scopes.js';
import { OAuthGrantError } from './oauth-errors.js';
import type { OAuthRecords } from './oauth-records.js';
import type { OAuthClient } from '../clients/clients-face.js';
import { type PairingRecord, PairingRepo } from './pairing-repo.js';
import type { User } from '../accounts/accounts-face.js';
import { type TokenService, tenantAllows } from './token-service.js';
import type { TokenResponse } from './token-types.js';

/** Letters and digits of pairing codes, without the look-alikes 0/O, 1/I/L. */
export const PAIRING_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
/** Characters of a pairing code. */
export const PAIRING_CODE_LENGTH = 10;
/** Where the pairing sign-in page binds a code (the `next` of auth_url). */
export const PAIRING_PAGE_PATH = '/oauth/authorize/pairing/';

/** Lifetime and polling interval of pairing codes. */
export interface PairingOptions {
  /** Seconds a code stays valid (default 600). */
  lifetimeS?: number;
  /** Minimum seconds between polls (default 5; RFC 8628 default). */
  intervalS?: number;
}

/** Answer of POST /oauth/pair/. */
export interface PairingStart {
  pairing_code: string;
  auth_url: string;
  expires_in: number;
  interval: number;
}

/** Pairing codes: start, bind (page or in-process), poll. */
export class PairingService {
  private readonly repo: PairingRepo;
  private readonly lifetimeS: number;
  private readonly intervalS: number;

  constructor(
    private readonly records: OAuthRecords,
    private readonly tokens: TokenService,
    private readonly clock: Clock,
    private readonly logger: Logger,
    options: PairingOptions = {},
  ) {
    this.repo = new PairingRepo(records.db);
    this.lifetimeS = options.lifetimeS ?? 600;
    this.intervalS = options.intervalS ?? 5;
  }

  /**
   * POST /oauth/pair/ (mode=device): a new code for `client` with the requested scopes (checked
   * against the client). `baseUrl` is the emulator's origin, for auth_url.
   */
  startPairing(client: OAuthClient, scope: string | undefined, baseUrl: string): PairingStart {
    if (!client.grantTypes.includes('pairing_code')) {
      throw new OAuthGrantError('unauthorized_client', 'the client may not use grant_type=pairing_code');
    }
    const grant = grantableScopes(scope, client.allowedScopes, 'pairing_code');
    if (!grant.ok) throw new OAuthGrantError(grant.error, grant.description);
    const code = newPairingCode();
    const now = this.clock.now();
    this.repo.insert(code, {
      clientId: client.clientId,
      scopes: grant.scopes,
      intervalS: this.intervalS,
      createdAt: now,
      expiresAt: now + this.lifetimeS * 1000,
    });
    this.logger.info({ client: client.clientId }, 'pairing started');
    return {
      pairing_code: code,
      auth_url: pairingAuthUrl(baseUrl, code),
      expires_in: this.lifetimeS,
      interval: this.intervalS,
    };
  }

  /** The pairing and its client when the code is live (not expired, undecided), else undefined. */
  findOpen(code: string): { record: PairingRecord; client: OAuthClient } | undefined {
    const record = this.repo.find(normalizePairingCode(code));
    if (!record || record.decision !== null || record.expiresAt <= this.clock.now()) return undefined;
    const client = this.records.clients.findById(record.clientId);
    if (!client || client.deletedAt !== null) return undefined;
    return { record, client };
  }

  /**
   * Records a person's decision on an open code. The client's tenant mode must let the person in
   * (tenant_mode single: its own organization), whatever they chose: else the pairing is denied
   * for them and access_denied thrown (the sign-in page's error; polls then answer
   * unauthorized_client). Throws NotFoundError for a code that is unknown, expired or already
   * decided.
   */
  decide(code: string, user: User, approve: boolean): void {
    const normalized = normalizePairingCode(code);
    const open = this.findOpen(normalized);
    if (!open) throw new NotFoundError('pairing code (unknown, expired or already used)');
    const allowed = tenantAllows(open.client, user);
    const decision = approve && allowed ? 'approved' : 'denied';
    if (!this.repo.decide(normalized, decision, user.id, this.clock.now())) {
      throw new NotFoundError('pairing code (already decided)');
    }
    this.logger.info({ client: open.client.clientId, decision }, 'pairing decided');
    if (!allowed) {
      throw new ForbiddenError('this application serves only users of its own organization', 'access_denied');
    }
  }

  /**
   * Approves a pairing for the user with `userEmail` without a browser: what the demo calls
   * in-process to pair its own agent. Throws NotFoundError (unknown code or user) or
   * access_denied (tenant rule).
   */
  approvePairing(code: string, userEmail: string): void {
    const user = this.records.users.findByEmail(userEmail);
    if (!user) throw new NotFoundError(`user ${userEmail}`);
    this.decide(code, user, true);
  }

  /** grant_type=pairing_code: one poll of the device (see the file comment for the answers). */
  async poll(client: OAuthClient, code: string, scope: string | undefined): Promise<TokenResponse> {
    const normalized = normalizePairingCode(code);
    const record = this.repo.find(normalized);
    if (!record || record.clientId !== client.clientId || record.consumedAt !== null) {
      throw new OAuthGrantError('invalid_grant', 'pairing_code: unknown or already used');
    }
    const now = this.clock.now();
    if (record.expiresAt <= now)
      throw new OAuthGrantError('expired_token', 'pairing_code: expired; start again');
    this.throttle(normalized, record, now);
    if (record.decision === 'denied') {
      this.assertTenantOfBinder(client, record);
      throw new OAuthGrantError('access_denied', 'the pairing was denied');
    }
    if (record.decision === null) {
      throw new OAuthGrantError('authorization_pending', 'the pairing code is not bound to a user yet');
    }
    return this.redeem(client, normalized, record, scope);
  }

  /**
   * tenant_mode single at the token endpoint: a code bound by a person of another organization
   * answers unauthorized_client (spec C), not the access_denied of a person who said no.
   */
  private assertTenantOfBinder(client: OAuthClient, record: PairingRecord): void {
    const user = record.userId === null ? undefined : this.records.users.findById(record.userId);
    if (user && !tenantAllows(client, user)) {
      throw new OAuthGrantError(
        'unauthorized_client',
        'tenant_mode single: this client serves only users of its own organization, and the ' +
          'pairing code was bound by a user of another organization',
      );
    }
  }

  private throttle(code: string, record: PairingRecord, now: number): void {
    const early = record.lastPolledAt !== null && now - record.lastPolledAt < record.intervalS * 1000;
    const interval = early ? record.intervalS + 5 : record.intervalS;
    this.repo.recordPoll(code, now, interval);
    if (early) {
      throw new OAuthGrantError(
        'slow_down',
        `polled too fast; wait at least ${interval} seconds between polls`,
      );
    }
  }

  private async redeem(
    client: OAuthClient,
    code: string,
    record: PairingRecord,
    scope: string | undefined,
  ): Promise<TokenResponse> {
    const user = record.userId === null ? undefined : this.records.users.findById(record.userId);
    if (!user) throw new OAuthGrantError('invalid_grant', 'the user of the pairing no longer exists');
    this.tokens.assertTenant(client, user);
    const asked = grantableScopes(scope, record.scopes, 'pairing_code');
    if (!asked.ok) throw new OAuthGrantError(asked.error, asked.description);
    if (!this.repo.consume(code, this.clock.now())) {
      throw new OAuthGrantError('invalid_grant', 'pairing_code: already used');
    }
    return this.tokens.issue(client, user, asked.scopes, randomUUID(), 'device');
  }
}

/** A fresh random pairing code of PAIRING_CODE_LENGTH characters of PAIRING_ALPHABET. */
export function newPairingCode(): string {
  let code = '';
  for (let i = 0; i < PAIRING_CODE_LENGTH; i++) code += PAIRING_ALPHABET[randomInt(PAIRING_ALPHABET.length)];
  return code;
}

/**
 * A typed pairing code in canonical form: NFKC, upper case, spaces and dashes removed. Throws
 * ValidationError('pairing_code') when anything else remains outside the alphabet.
 */
export function normalizePairingCode(input: string): string {
  const code = input
    .normalize('NFKC')
    .toUpperCase()
    .replace(/[\s-]+/g, '');
  if (code === '' || code.length > 64 || ![...code].every((ch) => PAIRING_ALPHABET.includes(ch))) {
    throw new ValidationError('pairing_code', `letters and digits of ${PAIRING_ALPHABET}`);
  }
  return code;
}

/** The sign-in URL of a pairing: the sign-in page whose `next` is the binding page of the code. */
export function pairingAuthUrl(baseUrl: string, code: string): string {
  const next = `${PAIRING_PAGE_PATH}?pairing_code=${encodeURIComponent(code)}`;
  return `${baseUrl.replace(/\/+$/, '')}/oauth/login/?next=${encodeURIComponent(next)}`;
}
