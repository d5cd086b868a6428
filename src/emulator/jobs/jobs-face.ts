/**
 * The face of jobs/: what other domains may use of its repositories (the job record, and the
 * deletion of an organization's jobs the composition lends to partner/). Other domains import
 * jobs/ repositories' types only from here (test/unit/architecture.test.ts). Types only.
 */
import type { JobRepo } from './job-repo.js';

export type { JobRecord } from './job-repo.js';

/** An organization's jobs going with it: their document paths, then the rows (partner/). */
export type OrganizationJobRecords = Pick<JobRepo, 'documentPathsOfOrganization' | 'deleteOfOrganization'>;
