/**
 * The face of clients/: what other domains may use of its repositories (the OAuth client
 * record). Other domains import clients/ repositories' types only from here
 * (test/unit/architecture.test.ts). Types only.
 */
export type { OAuthClient } from './oauth-client-repo.js';
