/**
 * The face of files/: what other domains may use of its repository (the stored file record, and
 * the deletion of an organization's stored files the composition lends to partner/). Other
 * domains import files/ repositories' types only from here (test/unit/architecture.test.ts).
 * Types only.
 */
import type { StoredFileRepo } from './stored-file-repo.js';

export type { StoredFile } from './stored-file-repo.js';

/** An organization's stored files going with it: listed, then their rows deleted (partner/). */
export type OrganizationFileRecords = Pick<StoredFileRepo, 'listByOrganization' | 'deleteOfOrganization'>;
