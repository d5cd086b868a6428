/**
 * Signing keys table: the JWT public keys as JWK JSON, so tokens stay valid across restarts
 * (the private halves live in their own files, see signing-key-service.ts; `private_jwk` is ''
 * once moved).
 * Borrowing the database handle; the owner of the handle closes it.
 */
import type { EmulatorDatabase } from '../store/database.js';

/** A stored signing key pair (JWK JSON). */
export interface SigningKeyRecord {
  kid: string;
  algorithm: string;
  privateJwk: string;
  publicJwk: string;
  createdAt: number;
  active: boolean;
}

interface KeyRow {
  kid: string;
  algorithm: string;
  private_jwk: string;
  public_jwk: string;
  created_at: number;
  active: number;
}

const toRecord = (r: KeyRow): SigningKeyRecord => ({
  kid: r.kid,
  algorithm: r.algorithm,
  privateJwk: r.private_jwk,
  publicJwk: r.public_jwk,
  createdAt: r.created_at,
  active: r.active === 1,
});

/** Reads and writes signing keys. */
export class SigningKeyRepo {
  constructor(private readonly db: EmulatorDatabase) {}

  insert(key: SigningKeyRecord): void {
    this.db
      .prepare(
        'INSERT INTO signing_keys (kid, algorithm, private_jwk, public_jwk, created_at, active) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(key.kid, key.algorithm, key.privateJwk, key.publicJwk, key.createdAt, key.active ? 1 : 0);
  }

  /** Blanks the private key of a stored key (it lives in its own file). */
  clearPrivate(kid: string): void {
    this.db.prepare("UPDATE signing_keys SET private_jwk = '' WHERE kid = ?").run(kid);
  }

  /** The newest active key, used for signing. */
  active(): SigningKeyRecord | undefined {
    const row = this.db
      .prepare('SELECT * FROM signing_keys WHERE active = 1 ORDER BY created_at DESC, kid LIMIT 1')
      .get() as KeyRow | undefined;
    return row && toRecord(row);
  }

  /** Every key, for the JWKS document and verification. */
  all(): SigningKeyRecord[] {
    return (this.db.prepare('SELECT * FROM signing_keys ORDER BY created_at').all() as KeyRow[]).map(
      toRecord,
    );
  }
}
