/**
 * The records oauth/ works on: its own repositories and the database its own tables live in, and
 * the users and clients it reads through the faces of accounts/ and clients/. The composition
 * (app.ts) lends the store under this type, so the OAuth services can call nothing else of
 * another domain.
 */
import type { UserSignInRecords } from '../accounts/accounts-face.js';
import type { ClientCredentialReader } from '../clients/clients-face.js';
import type { EmulatorDatabase } from '../store/database.js';
import type { RefreshTokenRepo } from './refresh-token-repo.js';
import type { SigningKeyRepo } from './signing-key-repo.js';

/** What the token, pairing, authorization-code and session services read and write. */
export interface OAuthRecords {
  /** The database, for the repositories oauth/ builds over its own tables. */
  db: EmulatorDatabase;
  refreshTokens: RefreshTokenRepo;
  signingKeys: SigningKeyRepo;
  users: UserSignInRecords;
  clients: ClientCredentialReader;
}
