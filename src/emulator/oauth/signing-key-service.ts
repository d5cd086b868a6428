/**
 * The JWT signing key: an RS256 key pair generated on first start and kept in the database, so
 * tokens survive restarts. Signs and verifies access tokens and publishes the JWKS document.
 * `start()` loads or creates the key; there is nothing to clean up.
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
import type { Clock } from '../../lib/clock.js';
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
  ) {}

  /** Loads the stored keys, generating and storing a key pair when there is none. */
  async start(): Promise<void> {
    if (!this.repo.active()) await this.generate();
    this.verified.clear();
    for (const record of this.repo.all()) {
      const jwk = JSON.parse(record.publicJwk) as JWK;
      this.publicKeys.set(record.kid, { jwk, key: (await importJWK(jwk, ALGORITHM)) as CryptoKey });
    }
    const active = this.repo.active()!;
    const key = (await importJWK(JSON.parse(active.privateJwk) as JWK, ALGORITHM)) as CryptoKey;
    this.signing = { kid: active.kid, key };
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
    this.repo.insert({
      kid,
      algorithm: ALGORITHM,
      privateJwk: JSON.stringify(await exportJWK(privateKey)),
      publicJwk: JSON.stringify(await exportJWK(publicKey)),
      createdAt: this.clock.now(),
      active: true,
    });
    this.logger.info({ kid }, 'generated a signing key');
  }
}
