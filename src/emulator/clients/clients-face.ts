/**
 * The face of clients/: what other domains may use of its repositories (the OAuth client
 * record, and the reads oauth/ and sandbox/ are lent by the composition). Other domains import clients/ repositories' types only from here
 * (test/unit/architecture.test.ts). Types only.
 */
import type { OAuthClientRepo } from './oauth-client-repo.js';

export type { OAuthClient } from './oauth-client-repo.js';

/** Reads a client by id, and with its secret's hash (oauth/: authorization and tokens). */
export type ClientCredentialReader = Pick<OAuthClientRepo, 'findById' | 'credentials'>;

/** Lists live clients, of one organization or of every one, by name (sandbox/: the console). */
export type LiveClientLister = Pick<OAuthClientRepo, 'listLive'>;

/** Lists the redirect URLs of every live client (app.ts: the origins CORS allows). */
export type RedirectUrlLister = Pick<OAuthClientRepo, 'liveRedirectUrls'>;
