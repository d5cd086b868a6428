/**
 * The HTTP base every cloud client uses: undici pools per origin, a per-request timeout, and
 * typed errors — network failures, 5xx and 429 become RetryableError (honouring Retry-After),
 * 401 becomes AuthError after one token refresh, other 4xx become HttpError (a PermanentError)
 * carrying the server's message; a certificate that does not verify is a PermanentError naming
 * the URL (cloud-trust.ts). `ca` adds a CA to trust. close() releases the pools.
 */
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { Clock } from '../lib/clock.js';
import { PermanentError, PrintRelayError, RetryableError } from '../lib/errors.js';
import { trustedCas, untrustedCertificateError } from './cloud-trust.js';
import { Pool } from './undici-core.js';

/** Supplies bearer tokens; invalidate() makes the next token() refresh. */
export interface TokenSource {
  token(signal?: AbortSignal): Promise<string>;
  invalidate(rejected: string): void;
}

/** The server refused the credentials even after a refresh. */
export class AuthError extends PrintRelayError {
  constructor(message: string) {
    super('unauthorized', message);
  }
}

/** A 4xx answer other than 401 and 429; `status` and the server's message are kept. */
export class HttpError extends PermanentError {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(`http_${status}`, message);
  }
}

/** One request. `path` is relative to the base URL, or absolute. */
export interface HttpRequest {
  method: Dispatcher.HttpMethod;
  path: string;
  query?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
  body?: string | Buffer | Readable;
  /** Send the bearer token (default true). */
  auth?: boolean;
  signal?: AbortSignal;
  /** Overrides the default timeout (ms of inactivity while waiting for headers or body). */
  timeoutMs?: number;
  /** Error statuses the caller handles itself (returned, not thrown), e.g. 412 of /sfapi/Print. */
  passStatuses?: number[];
}

/** A successful answer whose body the caller must consume or dump. */
export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
}

/** Settings of one HttpClient. */
export interface HttpClientOptions {
  baseUrl: string;
  timeoutMs: number;
  tokens?: TokenSource;
  clock?: Clock;
  userAgent?: string;
  /**
   * Told after each request whether it reached the server: an answer below 500 is contact, and so
   * is a 503 with Retry-After (the service itself saying it is busy, for example too many document
   * downloads at once); a network failure, timeout or other 5xx is not (the agent's readiness and
   * status use it).
   */
  onContact?: (ok: boolean, problem?: string) => void;
  /** PEM of a CA to trust besides the system roots (cloud.ca_file). */
  ca?: string;
}

/** A small HTTP client; construct per base URL and close() when done. */
export class HttpClient {
  private readonly pools = new Map<string, Pool>();

  constructor(private readonly options: HttpClientOptions) {}

  /** The base URL requests are relative to. */
  get baseUrl(): string {
    return this.options.baseUrl;
  }

  /** Sends a request; resolves with a 2xx (or 3xx) response, else throws a typed error. */
  async request(req: HttpRequest): Promise<HttpResponse> {
    const useAuth = req.auth !== false && this.options.tokens !== undefined;
    const token = useAuth ? await this.options.tokens?.token(req.signal) : undefined;
    const first = await this.send(req, token);
    if (first.status !== 401 || !useAuth || !token) return this.check(first, req);
    if (req.body !== undefined && typeof req.body !== 'string' && !Buffer.isBuffer(req.body)) {
      // a streamed body cannot be sent twice: let the caller retry with a fresh stream
      this.options.tokens?.invalidate(token);
      throw new AuthError(`${req.method} ${pathOf(req.path)}: ${await errorText(first)}`);
    }
    await first.body.dump();
    this.options.tokens?.invalidate(token);
    const fresh = await this.options.tokens?.token(req.signal);
    const second = await this.send(req, fresh);
    if (second.status === 401)
      throw new AuthError(`${req.method} ${pathOf(req.path)}: ${await errorText(second)}`);
    return this.check(second, req);
  }

  /** Sends a request and parses a JSON answer (undefined for 204). */
  async json<T>(req: HttpRequest & { json?: unknown }): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
    let body = req.body;
    if (req.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(req.json);
    }
    const res = await this.request({ ...req, headers, body });
    if (res.status === 204) {
      await res.body.dump();
      return undefined as T;
    }
    const text = await res.body.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** Closes every pool. */
  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.close()));
  }

  private async send(req: HttpRequest, token: string | undefined): Promise<HttpResponse> {
    const url = new URL(req.path, this.options.baseUrl);
    for (const [key, value] of Object.entries(req.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const headers: Record<string, string> = {
      'user-agent': this.options.userAgent ?? 'printrelay',
      ...req.headers,
    };
    if (token) headers.authorization = `Bearer ${token}`;
    const timeout = req.timeoutMs ?? this.options.timeoutMs;
    try {
      const res = await this.pool(url.origin).request({
        method: req.method,
        path: url.pathname + url.search,
        headers,
        body: req.body ?? null,
        signal: req.signal,
        headersTimeout: timeout,
        bodyTimeout: timeout,
      });
      if (res.statusCode >= 500 && !answeredBusy(res.statusCode, res.headers))
        this.options.onContact?.(false, `${url.origin} answered HTTP ${res.statusCode}`);
      else this.options.onContact?.(true);
      return { status: res.statusCode, headers: res.headers, body: res.body };
    } catch (error) {
      if (req.signal?.aborted) throw error;
      const where = `${req.method} ${url.origin}${url.pathname}`;
      const untrusted = untrustedCertificateError(where, error);
      if (untrusted) {
        this.options.onContact?.(false, untrusted.message);
        throw untrusted;
      }
      const problem = `${where}: ${describe(error)}`;
      this.options.onContact?.(false, problem);
      throw new RetryableError('network', problem, { cause: error });
    }
  }

  private async check(res: HttpResponse, req: HttpRequest): Promise<HttpResponse> {
    if (res.status < 400 || req.passStatuses?.includes(res.status)) return res;
    const message = await errorText(res);
    if (res.status >= 500 || res.status === 429) {
      const retryAfterMs = parseRetryAfter(
        header(res, 'retry-after'),
        this.options.clock?.now() ?? Date.now(),
      );
      throw new RetryableError(`http_${res.status}`, message, { retryAfterMs });
    }
    if (res.status === 401) throw new AuthError(message);
    throw new HttpError(res.status, message);
  }

  private pool(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      const ca = trustedCas(this.options.ca);
      pool = new Pool(origin, { connections: 8, ...(ca ? { connect: { ca } } : {}) });
      this.pools.set(origin, pool);
    }
    return pool;
  }
}

/** A 503 that says when to come back is the service answering that it is busy, not out of reach. */
function answeredBusy(status: number, headers: Record<string, string | string[] | undefined>): boolean {
  return status === 503 && headers['retry-after'] !== undefined;
}

/** Milliseconds to wait from a Retry-After header (seconds or an HTTP date); undefined when absent. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/** First value of a response header. */
export function header(res: HttpResponse, name: string): string | undefined {
  const value = res.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function errorText(res: HttpResponse): Promise<string> {
  const text = await res.body.text().catch(() => '');
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    for (const key of ['message', 'error_description', 'detail', 'error']) {
      if (typeof parsed[key] === 'string' && parsed[key]) return `HTTP ${res.status}: ${parsed[key]}`;
    }
  } catch {
    // not JSON: fall through to the raw text
  }
  return `HTTP ${res.status}${text ? `: ${text.slice(0, 200)}` : ''}`;
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: string }).code;
    return code ? `${code} ${error.message}` : error.message;
  }
  return String(error);
}

function pathOf(path: string): string {
  return path.split('?')[0] ?? path;
}
