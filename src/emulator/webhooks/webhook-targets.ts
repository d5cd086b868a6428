/**
 * Where and how deliveries of an endpoint are sent (parsed URL and Basic credentials), read once and
 * kept until the endpoint changes: the dispatcher asks for every delivery, and opening the
 * sealed password each time would cost more than the send. The service calls forget() after
 * every change. No resources to clean up.
 */
import type { WebhookEndpointRepo } from './webhook-endpoint-repo.js';
import type { SecretBox } from './webhook-secret-box.js';

/** URL (parsed once) and credentials of one endpoint. */
export interface DeliveryTarget {
  url: URL;
  /** The endpoint (its deliveries go through its own connection pool). */
  endpointId: string;
  basic?: { username: string; password: string };
}

/** A cache of delivery targets by endpoint id. */
export class WebhookTargets {
  private readonly cache = new Map<string, DeliveryTarget>();

  constructor(
    private readonly endpoints: WebhookEndpointRepo,
    private readonly secrets: SecretBox,
  ) {}

  /** The endpoint's target, or undefined when the endpoint is gone. */
  get(endpointId: string): DeliveryTarget | undefined {
    const cached = this.cache.get(endpointId);
    if (cached) return cached;
    const e = this.endpoints.findById(endpointId);
    if (!e) return undefined;
    const target: DeliveryTarget = { url: new URL(e.url), endpointId };
    if (e.authenticationScheme === 'basic') {
      const password = e.basicPasswordSealed ? this.secrets.open(e.basicPasswordSealed) : '';
      target.basic = { username: e.basicUsername, password };
    }
    this.cache.set(endpointId, target);
    return target;
  }

  /** Drops the cached target (after the endpoint changed or went). */
  forget(endpointId: string): void {
    this.cache.delete(endpointId);
  }
}
