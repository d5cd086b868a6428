/**
 * Builds the webhook parts of one emulator: the sealing key, the HTTPS sender, the delivery
 * worker (started), the publisher JobService reports outcomes to, and the service behind the
 * routes. The creator calls stop() before closing the database: it stops the worker (attempts
 * in flight stay queued) and closes the sender's connections.
 */
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../log/logger.js';
import type { EmulatorStore } from '../emulator-store.js';
import { type DispatcherOptions, WebhookDispatcher } from './webhook-dispatcher.js';
import { type EventSubjects, WebhookPublisher } from './webhook-publisher.js';
import { SecretBox } from './webhook-secret-box.js';
import { WebhookSender, type WebhookSenderOptions } from './webhook-sender.js';
import { WebhookService } from './webhook-service.js';
import { WebhookTargets } from './webhook-targets.js';

/** Webhook settings of the emulator (all optional). */
export interface WebhookOptions extends WebhookSenderOptions, DispatcherOptions {}

/** The running webhook parts. */
export interface WebhookParts {
  service: WebhookService;
  publisher: WebhookPublisher;
  dispatcher: WebhookDispatcher;
  stop(): Promise<void>;
}

/** Builds and starts the webhook parts over `store`. */
export async function startWebhookParts(
  store: EmulatorStore,
  /** The printers, connectors and users events name, lent by the composition. */
  subjects: EventSubjects,
  clock: Clock,
  logger: Logger,
  dataDir: string,
  options: WebhookOptions = {},
): Promise<WebhookParts> {
  const log = logger.child({ part: 'webhooks' });
  const secrets = await SecretBox.open(dataDir);
  // Each endpoint's pool has as many connections as it may have deliveries in flight.
  const connectionsPerOrigin = options.connectionsPerOrigin ?? options.perEndpoint ?? 4;
  const sender = new WebhookSender({ ...options, connectionsPerOrigin, clock });
  const targets = new WebhookTargets(store.webhookEndpoints, secrets);
  const dispatcher = new WebhookDispatcher(store.webhookDeliveries, targets, sender, clock, log, options);
  const publisher = new WebhookPublisher(store, subjects, clock, (endpointIds) =>
    dispatcher.queued(endpointIds),
  );
  const service = new WebhookService(store, dispatcher, sender, secrets, clock, log);
  dispatcher.start();
  return {
    service,
    publisher,
    dispatcher,
    stop: async () => {
      await dispatcher.stop();
      await sender.close();
    },
  };
}
