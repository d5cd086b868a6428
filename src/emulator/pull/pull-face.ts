/**
 * The face of pull/: what other domains may use of its repositories (the local job record the
 * webhook publisher turns into an event). Other domains import pull/ repositories' types only
 * from here (test/unit/architecture.test.ts). Types only.
 */
export type { LocalJobRecord } from './local-jobs/local-job-repo.js';
