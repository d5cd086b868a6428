/**
 * The JWT signing key: an RS256 key pair generated on first start, so tokens survive restarts.
 * The public half is kept in the database, the private half in its own file
 * `<keyDir>/<kid>.private.jwk` (0600 in a 0700 directory); a private key found in an older
 * database is moved to its file and blanked in the database. A missing private key file gives a
 * new key (tokens of the old one still verify). Signs and verifies access tokens and publishes
 * the JWKS document. `start()` loads or creates the key; there is nothing to clean up.
 */
import { randomUUID } from 'node:crypto';
import {
  type CryptoKey,
  type JWK,
  type JWTPayload,
  SignJWT,
  errors as joseErrors,
  exportJWK,
  generateKeyPair,
  importJWK,
  jwtVerify,
  decodeProtectedHeader,
} from 'jose';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../../lib/clock.js';
import { writeSecretFile } from '../store/data-files.js';
import type { Logger } from '../../log/logger.js';
import { TokenVerificationError } from './oauth-errors.js';
import type { SigningKeyRepo } from './signing-key-repo.js';
import { VerifiedTokenCache } from './verified-token-cache.js';

const ALGORITHM = 'RS256';

/** Why a token was refused, for the WWW-Authenticate description. */

/** Loads, creates and uses the signing key. */
export class SigningKeyService {
  private signing: { kid: string; key: CryptoKey } | undefined;
  private readonly publicKeys = new Map<string, { jwk: JWK; key: CryptoKey }>();
  /** Tokens whose signature was checked already; valid while the key set stays as loaded. */
  private readonly verified = new VerifiedTokenCache();

  constructor(
    private readonly repo: SigningKeyRepo,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** Directory of the private key files. */
    private readonly keyDir: string,
  ) {}

  /** Loads the stored keys, generating and storing a key pair when there is none. */
  async start(): Promise<void> {
    await this.movePrivateKeysToFiles();
    let active = this.repo.active();
    let privateJwk = active && (await this.readPrivate(active.kid));
    if (!active || privateJwk === undefined) {
      if (active) this.logger.warn({ path: this.keyPath(active.kid) }, 'signing key file missing: new key');
      await this.generate();
      active = this.repo.active()!;
      privateJwk = (await this.readPrivate(active.kid))!;
    }
    this.verified.clear();
    for (const record of this.repo.all()) {
      const jwk = JSON.parse(record.publicJwk) as JWK;
      this.publicKeys.set(record.kid, { jwk, key: (await importJWK(jwk, ALGORITHM)) as CryptoKey });
    }
    const key = (await importJWK(JSON.parse(privateJwk) as JWK, ALGORITHM)) as CryptoKey;
    this.signing = { kid: active.kid, key };
  }

  /** The private key files of every stored key (for the start-up mode check). */
  keyFiles(): string[] {
    return this.repo.all().map((r) => this.keyPath(r.kid));
  }

  private keyPath(kid: string): string {
    return join(this.keyDir, `${kid.replace(/[^A-Za-z0-9-]/g, '_')}.private.jwk`);
  }

  private async readPrivate(kid: string): Promise<string | undefined> {
    return readFile(this.keyPath(kid), 'utf8').catch(() => undefined);
  }

  private async movePrivateKeysToFiles(): Promise<void> {
    for (const record of this.repo.all()) {
      if (record.privateJwk === '') continue;
      if ((await this.readPrivate(record.kid)) === undefined) {
        await writeSecretFile(this.keyPath(record.kid), record.privateJwk);
      }
      this.repo.clearPrivate(record.kid);
      this.logger.info({ kid: record.kid }, 'moved the private signing key out of the database');
    }
  }

  /** Signs `claims` as a JWT with the active key. */
  async sign(claims: JWTPayload): Promise<string> {
    if (!this.signing) throw new Error('SigningKeyService.start() was not called');
    return new SignJWT(claims)
      .setProtectedHeader({ alg: ALGORITHM, kid: this.signing.kid, typ: 'JWT' })
      .sign(this.signing.key);
  }

  /**
   * Verifies signature, issuer and lifetime (against the injected clock), and the audience and
   * required claims when given; returns the claims. Only fully verified tokens are remembered,
   * so a cache hit passed the same checks.
   */
  async verify(
    token: string,
    issuer: string,
    rules: { audience?: string; requiredClaims?: string[] } = {},
  ): Promise<JWTPayload> {
    const known = this.verified.check(token, issuer, this.clock.now());
    if (known?.ok) return known.payload;
    if (known) {
      throw new TokenVerificationError(
        known.problem === 'expired' ? 'the token expired' : 'the token is invalid',
      );
    }
    let kid: string | undefined;
    try {
      kid = decodeProtectedHeader(token).kid;
    } catch {
      throw new TokenVerificationError('the token is not a JWT');
    }
    const entry = kid === undefined ? undefined : this.publicKeys.get(kid);
    if (!entry) throw new TokenVerificationError('the token was not signed by this service');
    try {
      const { payload } = await jwtVerify(token, entry.key, {
        algorithms: [ALGORITHM],
        issuer,
        currentDate: new Date(this.clock.now()),
        ...(rules.audience === undefined ? {} : { audience: rules.audience }),
        ...(rules.requiredClaims === undefined ? {} : { requiredClaims: rules.requiredClaims }),
      });
      // Shared between calls from now on: nobody may change it.
      const frozen = Object.freeze(payload);
      this.verified.remember(token, frozen);
      return frozen;
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw new TokenVerificationError('the token expired');
      throw new TokenVerificationError('the token is invalid');
    }
  }

  /** The public keys as a JWKS document. */
  jwks(): { keys: JWK[] } {
    return {
      keys: [...this.publicKeys.entries()].map(([kid, { jwk }]) => ({
        ...jwk,
        kid,
        alg: ALGORITHM,
        use: 'sig',
      })),
    };
  }

  private async generate(): Promise<void> {
    const { privateKey, publicKey } = await generateKeyPair(ALGORITHM, {
      extractable: true,
      modulusLength: 2048,
    });
    const kid = randomUUID();
    await writeSecretFile(this.keyPath(kid), JSON.stringify(await exportJWK(privateKey)));
    this.repo.insert({
      kid,
      algorithm: ALGORITHM,
      privateJwk: '',
      publicJwk: JSON.stringify(await exportJWK(publicKey)),
      createdAt: this.clock.now(),
      active: true,
    });
    this.logger.info({ kid }, 'generated a signing key');
  }
}
