/**
 * The face of webhooks/: what other domains may use of its repositories (the endpoint record, and
 * the read of one endpoint the composition lends to the sandbox). Other domains import webhooks/
 * repositories' types only from here (test/unit/architecture.test.ts). Types only.
 */
import type { WebhookEndpointRepo } from './webhook-endpoint-repo.js';

export type { WebhookEndpointRecord } from './webhook-endpoint-repo.js';

/** Reads an endpoint by id (sandbox/: the organization a webhook rule or a console retry is scoped by). */
export type WebhookEndpointReader = Pick<WebhookEndpointRepo, 'findById'>;
