/**
 * The HTTPS client of webhook delivery: one undici Agent (keep-alive, a connection limit per
 * endpoint origin) that trusts the system CAs plus an optional extra CA from the emulator's
 * configuration; certificate verification is never turned off. One POST per call, with the
 * spec's headers (`Content-Type: application/json; charset=utf-8`, `User-Agent: <product>/2.0`,
 * Basic credentials when configured); the answer is a transcript of request and response.
 * Every connection goes through the outbound address policy: a receiver on a private, loopback
 * or link-local address is refused unless the allow-list names it.
 * The spec's 30 s answer deadline is the Agent's own: 30 s to connect (TLS included), 30 s from
 * the request going out on its connection to the status line (undici's headersTimeout; a
 * request waiting for a free connection is not yet counted), 30 s between chunks of the
 * answer's body. No timer or AbortSignal is made per request: at a few thousand deliveries a
 * second they cost more than the database work. The creator calls close().
 */
import { STATUS_CODES } from 'node:http';
import { createSecureContext, rootCertificates } from 'node:tls';
import { Agent } from 'undici';
import { OutboundAddressPolicy } from '../http/outbound-address-policy.js';
import type { DeliveryError } from './webhook-delivery-repo.js';

/** The User-Agent of every delivery (the spec's form <product>/2.0). */
export const WEBHOOK_USER_AGENT = 'PrintRelay-Webhooks/2.0';
/** The spec's answer deadline. */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 30_000;
const TRANSCRIPT_BODY_LIMIT = 64 * 1024;

/** How the sender connects. */
export interface WebhookSenderOptions {
  /** PEM text of an extra CA to trust besides the system ones (a private receiver's CA). */
  extraCaPem?: string;
  /** Answer deadline in ms (default 30 000). */
  timeoutMs?: number;
  /** Connections per endpoint origin (default 4). */
  connectionsPerOrigin?: number;
  /** Which receiver addresses may be connected to (default: public addresses only). */
  policy?: OutboundAddressPolicy;
}

/**
 * The undici Agent of webhook delivery (exported so the benchmark's bare loop uses the very
 * same client): keep-alive connections, `connectionsPerOrigin` per origin, one TLS context for
 * all of them, the deadlines above. No pipelining: a POST is not idempotent, so undici would
 * send it only on an idle connection anyway.
 */
export function createWebhookAgent(options: WebhookSenderOptions = {}): Agent {
  const timeoutMs = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  // One secure context for every connection: parsing the system CAs per connection costs more
  // than a whole delivery.
  const secureContext = options.extraCaPem
    ? createSecureContext({ ca: [...rootCertificates, options.extraCaPem] })
    : undefined;
  const policy = options.policy ?? new OutboundAddressPolicy();
  return new Agent({
    connections: options.connectionsPerOrigin ?? 4,
    connect: policy.connector({ ...(secureContext ? { secureContext } : {}), timeout: timeoutMs }),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
}

/** One side of a transcript: all strings, as the spec's test result gives them. */
export interface TranscriptPart {
  start_line: string;
  headers: string;
  body: string;
}

/** What happened to one POST. */
export interface DeliveryTranscript {
  request: TranscriptPart;
  response: TranscriptPart;
  status: 'succeeded' | 'failed';
  error?: DeliveryError;
  response_status_code?: number;
  /** Why no answer came (connection refused or closed, certificate rejected, deadline). */
  detail?: string;
}

/** Where a POST goes. */
export interface PostTarget {
  /** The endpoint URL (queue deliveries pass the URL parsed once per endpoint). */
  url: string | URL;
  basic?: { username: string; password: string };
}

const EMPTY_PART: TranscriptPart = { start_line: '', headers: '', body: '' };
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/** Sends webhook POSTs; one instance per emulator. */
export class WebhookSender {
  private readonly agent: Agent;
  private readonly policy: OutboundAddressPolicy;
  private destroyed = false;
  /** Prepared requests by parsed endpoint URL (see requestOf). */
  private readonly prepared = new WeakMap<URL, PreparedRequest>();
  readonly timeoutMs: number;

  constructor(options: WebhookSenderOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
    this.policy = options.policy ?? new OutboundAddressPolicy();
    this.agent = createWebhookAgent({ ...options, policy: this.policy });
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
    try {
      const res = await this.agent.request({ origin, path, method: 'POST', headers, body });
      let answer = '';
      if (transcript) answer = await readLimited(res.body);
      else await res.body.dump();
      const response = transcript ? responsePart(res.statusCode, res.headers, answer) : EMPTY_PART;
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
      return {
        request,
        response: empty,
        status: 'failed',
        error: 'timeout',
        detail: describe(error),
      };
    }
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
   * emulator is stopping. Cheaper than a signal per request, which undici would listen on.
   */
  async destroy(): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    await this.agent.destroy();
  }

  /** Closes idle connections and refuses new requests (nothing left to do after destroy()). */
  async close(): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    await this.agent.close();
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

function requestPart(url: URL, headers: Readonly<Record<string, string>>, body: string): TranscriptPart {
  const lines = [
    `Host: ${url.host}`,
    ...Object.entries(headers).map(([k, v]) => `${headerName(k)}: ${shown(k, v)}`),
  ];
  lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return { start_line: `POST ${url.pathname}${url.search} HTTP/1.1`, headers: lines.join('\r\n'), body };
}

function responsePart(status: number, headers: Record<string, string | string[] | undefined>, body: string) {
  const lines = Object.entries(headers).flatMap(([k, v]) =>
    v === undefined ? [] : (Array.isArray(v) ? v : [v]).map((one) => `${headerName(k)}: ${one}`),
  );
  return {
    start_line: `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd(),
    headers: lines.join('\r\n'),
    body,
  };
}

/** Credentials are never echoed back, even in a transcript. */
function shown(name: string, value: string): string {
  return name === 'authorization' ? 'Basic [redacted]' : value;
}

function headerName(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
}

async function readLimited(body: AsyncIterable<Buffer> & { dump(): Promise<void> }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size < TRANSCRIPT_BODY_LIMIT) chunks.push(chunk);
    size += chunk.length;
  }
  return Buffer.concat(chunks).subarray(0, TRANSCRIPT_BODY_LIMIT).toString('utf8');
}

function describe(error: unknown): string {
  const e = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (TIMEOUT_CODES.has(e.code ?? '')) return 'no answer within the deadline';
  const cause = e.cause?.message ?? e.cause?.code;
  return [e.message ?? String(error), cause].filter(Boolean).join(': ');
}
