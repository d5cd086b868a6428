/**
 * The face of webhooks/: what other domains may use of its repositories (the endpoint record, and
 * the reads of endpoints and recent deliveries the composition lends to the sandbox). Other domains import webhooks/
 * repositories' types only from here (test/unit/architecture.test.ts). Types only.
 */
import type { WebhookDeliveryRepo } from './webhook-delivery-repo.js';
import type { WebhookEndpointRepo } from './webhook-endpoint-repo.js';

export type { WebhookEndpointRecord } from './webhook-endpoint-repo.js';
export type { RecentDelivery } from './webhook-recent-deliveries.js';

/**
 * Reads an endpoint by id, and lists endpoints (sandbox/: the organization a webhook rule or a
 * console retry is scoped by; the console's list).
 */
export type WebhookEndpointReader = Pick<WebhookEndpointRepo, 'findById' | 'list'>;

/** Lists the deliveries attempted last (sandbox/: the console). */
export type RecentDeliveryLister = Pick<WebhookDeliveryRepo, 'recent'>;
