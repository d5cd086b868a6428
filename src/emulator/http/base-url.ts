/**
 * The base URL of the absolute URLs the emulator hands out (sasUri, pagination links, auth and
 * pairing URLs). In order: the configured public URL; behind a trusted reverse proxy
 * (`trustProxy`) the X-Forwarded-Proto/Host/Port of the request; else the scheme of the listener
 * with the host and port the client used, but only when that host names this listener (the
 * listen address, a local interface address when listening on all of them, `localhost` or the
 * machine's name). Any other Host header gets the listen address: a client cannot steer upload
 * URLs to a host of its choosing.
 */
import { hostname, networkInterfaces } from 'node:os';

/** What the policy is built from (the emulator's options). */
export interface BaseUrlSettings {
  publicUrl?: string | undefined;
  trustProxy?: boolean | undefined;
}

/** The parts of a request the policy reads (a FastifyRequest has them). */
export interface RequestOrigin {
  headers: Record<string, string | string[] | undefined>;
  protocol: string;
  host: string;
}

interface Listener {
  scheme: 'http' | 'https';
  port: number;
  /** The URL of the listen address itself. */
  url: string;
  /** Lower-case host names that reach this listener. */
  hosts: Set<string>;
}

const HOST = /^(\[[0-9a-f:.]+\]|[a-z0-9]([a-z0-9.-]{0,253}[a-z0-9])?)(:\d{1,5})?$/i;

/** See the module comment; one per emulator. */
export class BaseUrlPolicy {
  private listener: Listener | undefined;

  constructor(private readonly settings: BaseUrlSettings = {}) {}

  /** The configured public URL, without a trailing slash. */
  get publicUrl(): string | undefined {
    return this.settings.publicUrl?.replace(/\/+$/, '');
  }

  /** Records where the server listens; returns the listen URL (https:// with TLS). */
  listening(scheme: 'http' | 'https', address: { address: string; family: string; port: number }): string {
    const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const url = `${scheme}://${shown}:${address.port}`;
    this.listener = { scheme, port: address.port, url, hosts: hostsOf(address.address) };
    return url;
  }

  /** The base URL (no trailing slash) for URLs handed to the client of this request. */
  forRequest(request: RequestOrigin): string {
    const configured = this.publicUrl;
    if (configured) return configured;
    if (this.settings.trustProxy) {
      const forwarded = forwardedBase(request);
      if (forwarded) return forwarded;
    }
    const listener = this.listener;
    // Before listen() (app.inject in tests) the request is the only source there is.
    if (!listener) return `${request.protocol}://${request.host}`;
    const host = header(request, 'host');
    if (!host || !HOST.test(host)) return listener.url;
    const { name, port } = splitHost(host);
    const usedPort = port ?? (listener.scheme === 'https' ? 443 : 80);
    if (usedPort !== listener.port || !listener.hosts.has(name.toLowerCase())) return listener.url;
    return `${listener.scheme}://${host}`;
  }
}

function header(request: RequestOrigin, name: string): string | undefined {
  const value = request.headers[name];
  const first = (Array.isArray(value) ? value[0] : value)?.split(',')[0]?.trim();
  return first || undefined;
}

/** The base from X-Forwarded-Proto/Host/Port, or undefined when the proxy sent no usable host. */
function forwardedBase(request: RequestOrigin): string | undefined {
  const host = header(request, 'x-forwarded-host');
  if (!host || !HOST.test(host)) return undefined;
  const proto = header(request, 'x-forwarded-proto')?.toLowerCase();
  const scheme = proto === 'https' || proto === 'http' ? proto : request.protocol;
  const portText = header(request, 'x-forwarded-port');
  const { name, port } = splitHost(host);
  const port2 = portText && /^\d{1,5}$/.test(portText) ? Number(portText) : port;
  const defaultPort = scheme === 'https' ? 443 : 80;
  return port2 === undefined || port2 === defaultPort
    ? `${scheme}://${name}`
    : `${scheme}://${name}:${port2}`;
}

function splitHost(host: string): { name: string; port: number | undefined } {
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host);
  return { name: match?.[1] ?? host, port: match?.[2] ? Number(match[2]) : undefined };
}

/** The names that reach a listener bound to `address`. */
function hostsOf(address: string): Set<string> {
  const wildcard = address === '0.0.0.0' || address === '::';
  const hosts = new Set<string>(['localhost']);
  const add = (a: string) => hosts.add(a.includes(':') ? `[${a.toLowerCase()}]` : a.toLowerCase());
  add(address);
  if (wildcard) {
    hosts.add(hostname().toLowerCase());
    for (const list of Object.values(networkInterfaces()))
      for (const info of list ?? []) add(info.address.replace(/%.*$/, ''));
  } else if (address === '127.0.0.1' || address === '::1') {
    add(address === '::1' ? '127.0.0.1' : '::1');
  }
  return hosts;
}
