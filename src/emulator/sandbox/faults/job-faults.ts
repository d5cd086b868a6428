/**
 * The switchboard's job rules (`end_job`): when a connector reports a matching job printed, the
 * report is recorded as a failure with the rule's code (3011, 2, ...) or as printed with the
 * rule's page count; a failure's message names the rule (`fault rule f2`). Everything that
 * derives from the report (Status, webhooks, /TPFM/) follows. A report the job already has
 * (a resend) or a job already ended is left alone and uses nothing of the rule.
 */
import type { JobEvent } from '../../../protocol/connector-channel.js';
import type { Logger } from '../../../log/logger.js';
import type { JobService } from '../../jobs/job-service.js';
import type { SandboxRecords } from '../sandbox-records.js';
import type { FaultSwitchboard } from './fault-switchboard.js';

/** What the job rules steer: the jobs' reports. */
export interface JobFaultContext {
  jobs: JobService;
  logger: Logger;
}

/** Installs the filter on the job service. */
export function installJobFaults(
  board: FaultSwitchboard,
  context: JobFaultContext,
  records: SandboxRecords,
): void {
  context.jobs.setReportFilter(async (jobId, event) => {
    if (event.kind !== 'completed' || !board.has(['end_job'])) return event;
    const job = records.jobs.findById(jobId);
    if (!job || job.finishedAt !== null || records.jobs.hasEvent(event.event_id)) return event;
    const user = records.users.findById(job.userId);
    const rule = await board.take(['end_job'], {
      mentions: (printerId) => printerId.toLowerCase() === job.printerId,
      caller: async () => ({
        organizationId: job.organizationId,
        userId: job.userId,
        ...(user ? { userEmail: user.email } : {}),
      }),
    });
    if (rule?.action.kind !== 'end_job') return event;
    context.logger.info({ job: jobId, fault: rule.id }, 'fault rule ended the job');
    const { errorCode, pagesPrinted } = rule.action;
    if (errorCode !== undefined)
      return {
        ...event,
        kind: 'failed',
        error_code: errorCode,
        message: `fault rule ${rule.id}`,
      } as JobEvent;
    const total = event.pages_total;
    return {
      ...event,
      pages_printed: pagesPrinted,
      ...(total === undefined ? {} : { pages_total: Math.max(total, pagesPrinted ?? 0) }),
    } as JobEvent;
  });
}
