/**
 * The face of jobs/: what other domains may use of its repositories (the job record, the
 * deletion of an organization's jobs the composition lends to partner/, and the read of a job
 * and its recorded events it lends to the sandbox). Other domains import
 * jobs/ repositories' types only from here (test/unit/architecture.test.ts). Types only.
 */
import type { JobRepo } from './job-repo.js';

export type { JobRecord } from './job-repo.js';

/** An organization's jobs going with it: their document paths, then the rows (partner/). */
export type OrganizationJobRecords = Pick<JobRepo, 'documentPathsOfOrganization' | 'deleteOfOrganization'>;

/**
 * Reads a job by id, whether a connector's event is recorded, and pages of the latest jobs
 * (sandbox/: job rules, the console).
 */
export type JobReader = Pick<JobRepo, 'findById' | 'hasEvent' | 'recent'>;
