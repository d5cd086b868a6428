/**
 * The HTTPS client of webhook delivery. Every endpoint gets its own undici Pool (keep-alive,
 * `connectionsPerOrigin` connections, made on its first delivery, closed when the endpoint
 * changes or goes, or after POOL_IDLE_MS without a delivery), so a receiver that never answers
 * ties up only its own endpoint's connections, never those of another endpoint or tenant on the
 * same host. The endpoint test, which has no endpoint, goes through one shared Agent. All trust
 * the system CAs plus an optional extra CA from the emulator's configuration; certificate
 * verification is never turned off. One POST per call, with the spec's headers
 * (`Content-Type: application/json; charset=utf-8`, `User-Agent: <product>/2.0`, Basic
 * credentials when configured); the answer is a transcript of request and response.
 * Every connection goes through the outbound address policy: a receiver on a private, loopback
 * or link-local address is refused unless the allow-list names it.
 * The spec's 30 s answer deadline counts from the moment send() starts, on the injected clock:
 * connecting, TLS, waiting for the status line and reading the body all fall inside it. Each
 * POST is kept with its deadline; one sweep (a real timer every DEADLINE_TICK_MS, and
 * abortOverdue(), which the dispatcher calls at every look at the queue) aborts those past
 * their deadline (webhook-post.ts: an abort handle from undici's dispatch interface, no
 * AbortSignal per POST). The pools' own connect, headers and body timeouts stay as a backstop.
 * The creator calls close() (or destroy()).
 */
import { createSecureContext, rootCertificates } from 'node:tls';
import { Agent, Pool } from 'undici';
import { type Clock, systemClock } from '../../lib/clock.js';
import { OutboundAddressPolicy } from '../http/outbound-address-policy.js';
import { type PendingPost, startPost } from './webhook-post.js';
import {
  type DeliveryTranscript,
  describeFailure,
  EMPTY_PART,
  requestPart,
  responsePart,
} from './webhook-transcript.js';

/** The User-Agent of every delivery (the spec's form <product>/2.0). */
export const WEBHOOK_USER_AGENT = 'PrintRelay-Webhooks/2.0';
/** The spec's answer deadline. */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 30_000;
/** An endpoint's pool unused this long (on the clock) is closed. */
export const POOL_IDLE_MS = 60_000;
const TRANSCRIPT_BODY_LIMIT = 64 * 1024;
/** How often the deadline sweep runs, in real ms (at most). */
const DEADLINE_TICK_MS = 250;

/** How the sender connects. */
export interface WebhookSenderOptions {
  /** PEM text of an extra CA to trust besides the system ones (a private receiver's CA). */
  extraCaPem?: string;
  /** Answer deadline in ms, counted from the start of a delivery (default 30 000). */
  timeoutMs?: number;
  /** Connections of each endpoint's own pool, and per origin of the endpoint test (default 4). */
  connectionsPerOrigin?: number;
  /** Which receiver addresses may be connected to (default: public addresses only). */
  policy?: OutboundAddressPolicy;
  /** The clock deadlines are counted on (default the system clock). */
  clock?: Clock;
}

/** What an undici Agent or Pool of webhook delivery is built with. */
function clientOptions(options: WebhookSenderOptions) {
  const timeoutMs = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  // One secure context for every connection: parsing the system CAs per connection costs more
  // than a whole delivery.
  const secureContext = options.extraCaPem
    ? createSecureContext({ ca: [...rootCertificates, options.extraCaPem] })
    : undefined;
  const policy = options.policy ?? new OutboundAddressPolicy();
  return {
    connections: options.connectionsPerOrigin ?? 4,
    connect: policy.connector({ ...(secureContext ? { secureContext } : {}), timeout: timeoutMs }),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  };
}

/**
 * An undici Agent of webhook delivery (exported so the benchmark's bare loop uses the same
 * client settings): keep-alive connections, `connectionsPerOrigin` per origin, one TLS context
 * for all of them, the timeouts above. No pipelining: a POST is not idempotent, so undici would
 * send it only on an idle connection anyway.
 */
export function createWebhookAgent(options: WebhookSenderOptions = {}): Agent {
  return new Agent(clientOptions(options));
}

/** Where a POST goes. */
export interface PostTarget {
  /** The endpoint URL (queue deliveries pass the URL parsed once per endpoint). */
  url: string | URL;
  basic?: { username: string; password: string };
  /** The endpoint whose own pool carries the POST; without one (the endpoint test) the shared Agent. */
  endpointId?: string;
}

/** One endpoint's pool and its use. */
interface EndpointPool {
  pool: Pool;
  origin: string;
  /** POSTs of the pool not finished yet. */
  active: number;
  /** Clock time of the last POST's start or end. */
  lastUsed: number;
}

/** Sends webhook POSTs; one instance per emulator. */
export class WebhookSender {
  private readonly agent: Agent;
  private readonly policy: OutboundAddressPolicy;
  private readonly clock: Clock;
  private readonly options: ReturnType<typeof clientOptions>;
  private destroyed = false;
  /** Prepared requests by parsed endpoint URL (see requestOf). */
  private readonly prepared = new WeakMap<URL, PreparedRequest>();
  /** Each endpoint's own pool, by endpoint id. */
  private readonly pools = new Map<string, EndpointPool>();
  /** POSTs under way and their deadlines, in start order (so in deadline order). */
  private readonly deadlines = new Map<PendingPost, number>();
  private sweep: NodeJS.Timeout | undefined;
  readonly timeoutMs: number;

  constructor(options: WebhookSenderOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
    this.policy = options.policy ?? new OutboundAddressPolicy();
    this.clock = options.clock ?? systemClock;
    this.options = clientOptions({ ...options, policy: this.policy });
    this.agent = new Agent(this.options);
  }

  /** Why the literal host of `url` may not receive webhooks (an address or localhost), or undefined. */
  urlRefusal(url: string): string | undefined {
    return this.policy.urlRefusal(url);
  }

  /**
   * POSTs one event; resolves to the transcript (also on failure), rejects only when destroy()
   * cut it off. With `transcript` (the endpoint test) the whole transcript is written; without
   * it the request and response parts stay empty and the response body is discarded: queue
   * deliveries need only the outcome.
   */
  async send(target: PostTarget, body: string, transcript = false): Promise<DeliveryTranscript> {
    const { url, origin, path, headers } = this.requestOf(target);
    const request = transcript ? requestPart(url, headers, body) : EMPTY_PART;
    const pooled = target.endpointId === undefined ? undefined : this.poolOf(target.endpointId, origin);
    const post = startPost(
      pooled?.pool ?? this.agent,
      { origin, path, headers, body },
      transcript ? TRANSCRIPT_BODY_LIMIT : 0,
    );
    this.deadlines.set(post, this.clock.now() + this.timeoutMs);
    this.sweep ??= setInterval(() => this.abortOverdue(), Math.min(DEADLINE_TICK_MS, this.timeoutMs)).unref();
    try {
      const res = await post.answer;
      const response = transcript ? responsePart(res.statusCode, res.headers, res.body) : EMPTY_PART;
      if (res.statusCode >= 200 && res.statusCode < 300) return { request, response, status: 'succeeded' };
      return {
        request,
        response,
        status: 'failed',
        error: 'response_status_code',
        response_status_code: res.statusCode,
      };
    } catch (error) {
      if (this.destroyed) throw error;
      const empty = { start_line: '', headers: '', body: '' };
      return { request, response: empty, status: 'failed', error: 'timeout', detail: describeFailure(error) };
    } finally {
      this.deadlines.delete(post);
      if (pooled) {
        pooled.active -= 1;
        pooled.lastUsed = this.clock.now();
      }
    }
  }

  /**
   * Aborts every POST past its deadline, and closes endpoint pools unused for POOL_IDLE_MS.
   * Cheap when nothing is overdue (it stops at the first POST still inside its deadline).
   */
  abortOverdue(): void {
    const now = this.clock.now();
    for (const [post, deadline] of this.deadlines) {
      if (deadline > now) break;
      this.deadlines.delete(post);
      post.abort();
    }
    for (const [endpointId, entry] of this.pools)
      if (entry.active === 0 && now - entry.lastUsed >= POOL_IDLE_MS) this.release(endpointId);
  }

  /** Closes the endpoint's pool (after it changed or went); POSTs under way finish or meet their deadline. */
  release(endpointId: string): void {
    const entry = this.pools.get(endpointId);
    if (!entry) return;
    this.pools.delete(endpointId);
    entry.pool.close().catch(() => undefined);
  }

  /** Endpoint pools open now. */
  poolCount(): number {
    return this.pools.size;
  }

  /** The endpoint's pool for `origin` (a new one when the URL moved to another origin), counted as used. */
  private poolOf(endpointId: string, origin: string): EndpointPool {
    let entry = this.pools.get(endpointId);
    if (entry && entry.origin !== origin) {
      this.release(endpointId);
      entry = undefined;
    }
    if (!entry) {
      entry = { pool: new Pool(origin, this.options), origin, active: 0, lastUsed: 0 };
      this.pools.set(endpointId, entry);
    }
    entry.active += 1;
    entry.lastUsed = this.clock.now();
    return entry;
  }

  /**
   * Origin, path and headers of a POST. For a parsed URL (queue deliveries pass the one their
   * endpoint's target keeps) they are made once and reused while the credentials stay the same
   * object, so a delivery does not rebuild them (nor encode Basic credentials) every time.
   */
  private requestOf(target: PostTarget): PreparedRequest {
    if (typeof target.url === 'string') return prepareRequest(new URL(target.url), target.basic);
    const cached = this.prepared.get(target.url);
    if (cached && cached.basic === target.basic) return cached;
    const made = prepareRequest(target.url, target.basic);
    this.prepared.set(target.url, made);
    return made;
  }

  /**
   * Cuts off every request in flight (their send() rejects) and closes the connections: the
   * emulator is stopping.
   */
  async destroy(): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    clearInterval(this.sweep);
    const pools = [...this.pools.values()].map((e) => e.pool.destroy());
    this.pools.clear();
    await Promise.all([this.agent.destroy(), ...pools]);
  }

  /** Closes idle connections and refuses new requests (nothing left to do after destroy()). */
  async close(): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    clearInterval(this.sweep);
    const pools = [...this.pools.values()].map((e) => e.pool.close());
    this.pools.clear();
    await Promise.all([this.agent.close(), ...pools]);
  }
}

/** What a POST to one URL with given credentials sends besides the body; never changed once made. */
interface PreparedRequest {
  url: URL;
  origin: string;
  path: string;
  headers: Readonly<Record<string, string>>;
  basic: PostTarget['basic'];
}

function prepareRequest(url: URL, basic: PostTarget['basic']): PreparedRequest {
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'user-agent': WEBHOOK_USER_AGENT,
  };
  if (basic && (basic.username !== '' || basic.password !== ''))
    headers['authorization'] =
      `Basic ${Buffer.from(`${basic.username}:${basic.password}`).toString('base64')}`;
  return { url, origin: url.origin, path: `${url.pathname}${url.search}`, headers, basic };
}
