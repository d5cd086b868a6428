/**
 * What an emulator is built from (createEmulator in app.ts): database, data directory, seed,
 * logger and clock, how it is reached (public URL, proxy, TLS), and the limits and allow-lists
 * of its outward-facing parts.
 */
import type { EmulatorSeed } from '../config/emulator-seed-schema.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../log/logger.js';
import type { ChannelSettings } from './connectors/connector-hub.js';
import type { UploadLimits } from './files/upload-limits.js';
import type { DownloadLimits } from './http/download-gate.js';
import type { CredentialLimits } from './store/credential-guard.js';
import type { WebhookOptions } from './webhooks/webhook-parts.js';
import type { SandboxOptions } from './sandbox/sandbox.js';

/** How to build an emulator (see createEmulator). */
export interface EmulatorOptions {
  /** Database file path, or ':memory:'. */
  db: string;
  /** Directory for uploaded files and other data; created when missing. */
  dataDir: string;
  /** Applied to an empty database only. */
  seed: EmulatorSeed;
  logger: Logger;
  /** The base clock; the sandbox's test clock (default on) moves the emulator's time ahead of it. */
  clock?: Clock;
  /** The console, fault switchboard and test clock under /_emulator/ (default on). */
  sandbox?: SandboxOptions;
  /** Base for absolute URLs such as sasUri; default: see BaseUrlPolicy. Also the tokens' issuer. */
  publicUrl?: string;
  /** Honour X-Forwarded-Proto/Host/Port from a reverse proxy in front (default false). */
  trustProxy?: boolean;
  /** Serve HTTPS with this key and certificate (PEM); default plain HTTP. */
  tls?: { key: string | Buffer; cert: string | Buffer };
  /** Seconds between channel pings (default 25); tests shorten it. */
  channelHeartbeatS?: number;
  /**
   * The connector channel's protocol: the highest version spoken (default 3; 2 acts as an older
   * cloud) and the largest document sent inline with its offer (default 256 KiB; 0: none).
   */
  connectorChannel?: ChannelSettings;
  /** The printer driver catalog directory (default: drivers/printers/ of the package). */
  driverDir?: string;
  /** Webhook delivery: an extra CA to trust, the answer deadline (default 30 s), concurrency. */
  webhooks?: WebhookOptions;
  /** Failure throttles of secret checks (default: defaultCredentialLimits). */
  credentialLimits?: CredentialLimits;
  /**
   * Address ranges (CIDRs or single addresses) that fileurl fetches and webhook deliveries may
   * reach although private, loopback or link-local (default none: public addresses only).
   */
  outboundAllow?: readonly string[];
  /** Time between two registration sheets printed for one unknown card (default 10 minutes). */
  registrationSheetIntervalMs?: number;
  /** Origins allowed cross-origin besides those of registered redirect URLs (see http/cors-policy.ts). */
  corsOrigins?: readonly string[];
  /** Largest document an upload or a fileurl fetch may store, in bytes (default 4 GiB). */
  maxDocumentBytes?: number;
  /** Limits of PrepareUpload uploads (defaults: files/upload-limits.ts defaultUploadLimits). */
  uploadLimits?: Partial<UploadLimits>;
  /**
   * Caps of document downloads at once, overall and per organization, and of the line waiting
   * for them (defaults: http/download-gate.ts DEFAULT_DOWNLOAD_LIMITS).
   */
  downloads?: Partial<DownloadLimits>;
}
