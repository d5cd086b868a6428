/**
 * How a connector sees a job: the offer it gets (the document's channel URL, the ticket, the
 * user), and the lookup of a job the calling connector may act on (its printer's, or one it
 * holds), with the 404 or 409 the channel answers otherwise. Reads only; holds nothing.
 */
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import { CHANNEL_PATHS, type JobOffer } from '../../protocol/connector-channel.js';
import type { ConnectorRecord } from '../connectors/connectors-face.js';
import type { JobRecords } from './job-records.js';
import type { JobRecord } from './job-repo.js';

/** The offer the connector gets for a job (the printer's tp_id and the user read from `records`). */
export function jobOffer(records: Pick<JobRecords, 'printers' | 'users'>, job: JobRecord): JobOffer {
  const printer = records.printers.findById(job.printerId);
  const user = records.users.findById(job.userId);
  return {
    job_id: job.id,
    printer_id: job.printerId,
    tp_id: printer?.tpId ?? 0,
    document: {
      url: CHANNEL_PATHS.document(job.id),
      size: job.file.size,
      sha256: job.file.sha256,
      extension: job.file.extension,
      content_type: job.file.contentType,
      name: job.file.name,
    },
    ticket: job.ticket,
    user: {
      id: job.userId,
      email: user?.email ?? '',
      name: user ? `${user.firstName} ${user.lastName}`.trim() : '',
    },
    created: new Date(job.createdAt).toISOString(),
  };
}

/**
 * The job on one of the connector's printers: ConflictError when another connector of the
 * organization holds it, NotFoundError when it is unknown, foreign or on another connector's
 * printer (naming the connector the call was taken as).
 */
export function requireJobOfConnector(
  records: Pick<JobRecords, 'jobs' | 'printers'>,
  connector: ConnectorRecord,
  jobId: string,
): JobRecord {
  const job = records.jobs.findById(jobId);
  const printer = job && records.printers.findById(job.printerId);
  if (
    !job ||
    job.organizationId !== connector.organizationId ||
    !printer ||
    printer.connectorId !== connector.id
  ) {
    if (
      job &&
      job.organizationId === connector.organizationId &&
      job.claimedBy !== null &&
      job.claimedBy !== connector.id
    ) {
      throw new ConflictError(`job ${jobId} is held by another connector`, 'job_id');
    }
    // A job of the organization on another connector's printer: the answer names the connector
    // the call was taken as, so a caller taken for another one (no X-Host-Id) can tell.
    const sameOrg = job?.organizationId === connector.organizationId;
    throw new NotFoundError(
      sameOrg ? `job ${jobId} of connector "${connector.readableName}"` : `job ${jobId}`,
    );
  }
  return job;
}
