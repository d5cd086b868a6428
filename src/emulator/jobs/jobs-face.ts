/**
 * The face of jobs/: what other domains may use of its repositories (the job record). Other
 * domains import jobs/ repositories' types only from here (test/unit/architecture.test.ts).
 * Types only.
 */
export type { JobRecord } from './job-repo.js';
