/**
 * The switchboard's webhook rules (`webhook_status`): a receiver's answer to a delivery is
 * recorded as that failing status instead (the receiver did get the POST), so the retry
 * schedule, failed events and retries run as after a real failure. Scoped by `endpoint`; an
 * admin's rule by their organization's endpoints.
 */
import type { Logger } from '../../../log/logger.js';
import type { WebhookService } from '../../webhooks/webhook-service.js';
import type { SandboxRecords } from '../sandbox-records.js';
import type { FaultSwitchboard } from './fault-switchboard.js';

/** What the webhook rules steer: the receivers' answers. */
export interface WebhookFaultContext {
  webhooks: WebhookService;
  logger: Logger;
}

/** Installs the filter on the webhook service. */
export function installWebhookFaults(
  board: FaultSwitchboard,
  context: WebhookFaultContext,
  records: SandboxRecords,
): void {
  context.webhooks.setAnswerFilter(async (endpointId, transcript) => {
    if (!board.has(['webhook_status'])) return transcript;
    const endpoint = records.webhookEndpoints.findById(endpointId);
    if (!endpoint) return transcript;
    const rule = await board.take(['webhook_status'], {
      endpoint: endpointId,
      mentions: () => false,
      caller: async () => ({ organizationId: endpoint.organizationId }),
    });
    if (rule?.action.kind !== 'webhook_status') return transcript;
    context.logger.info({ endpoint: endpointId, fault: rule.id }, 'fault rule failed a webhook answer');
    return {
      ...transcript,
      status: 'failed',
      error: 'response_status_code',
      response_status_code: rule.action.status,
      detail: `fault rule ${rule.id}`,
    };
  });
}
