/**
 * The records the sandbox reads, each through the face of the domain that owns it: the sandbox
 * has no table of its own and writes none. The composition (app.ts) lends the store under this
 * type when it registers the sandbox.
 */
import type { UserReader } from '../accounts/accounts-face.js';
import type { JobReader } from '../jobs/jobs-face.js';
import type { WebhookEndpointReader } from '../webhooks/webhooks-face.js';

/** What the fault rules and the console read of other domains. */
export interface SandboxRecords {
  /** A job a rule ends, or whose document the console serves. */
  jobs: JobReader;
  /** The user a rule's caller is (its e-mail). */
  users: UserReader;
  /** The endpoint a webhook rule or a console retry names. */
  webhookEndpoints: WebhookEndpointReader;
}
