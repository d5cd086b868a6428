/**
 * The agent's local control API on node:http (the agent never loads fastify): GET /healthz
 * (the process answers), /readyz (200 or 503 with reasons), /metrics (Prometheus text) and
 * /status (what the agent is doing, JSON). Read-only; anything else is 404, other methods 405.
 * Only requests naming this server in their Host header are answered: its listening address with
 * the port, or `localhost` (with or without the port); on a wildcard bind any IP address with the
 * port. Any other name gets 421, so a web page whose DNS name was rebound to 127.0.0.1 cannot read
 * /status. start() listens, stop() closes the server and its keep-alive connections.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, isIP } from 'node:net';
import { errorMessage } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import { type AgentStatus, readiness } from './agent-status.js';

/** What the server reads; all owned by the caller. */
export interface ControlServerDeps {
  bind: string;
  port: number;
  status: () => AgentStatus;
  metrics: { render(): Promise<string>; readonly contentType: string };
  logger: Logger;
}

/** See the file comment. */
export class ControlServer {
  private server: Server | undefined;

  constructor(private readonly deps: ControlServerDeps) {}

  /** Listens; resolves with the base URL (http://127.0.0.1:9631). */
  async start(): Promise<string> {
    const server = createServer((req, res) => void this.handle(req, res));
    server.keepAliveTimeout = 5000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.deps.port, this.deps.bind, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    return this.url() ?? '';
  }

  /** The base URL while listening. */
  url(): string | undefined {
    const address = this.server?.address() as AddressInfo | null | undefined;
    if (!address) return undefined;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `http://${host}:${address.port}`;
  }

  /** Stops listening and closes open connections. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]?.replace(/\/+$/, '') || '/';
    const address = this.server?.address() as AddressInfo | null | undefined;
    if (address && !hostAllowed(req.headers.host, address)) {
      this.deps.logger.debug(
        { host: req.headers.host, path },
        'control API request for another host refused',
      );
      return send(res, 421, {
        error: 'misdirected_request',
        message: `Host must be this control API's address (${this.url()}) or localhost:${address.port}`,
      });
    }
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('allow', 'GET, HEAD');
        return send(res, 405, { error: 'method_not_allowed', message: 'the control API is read-only' });
      }
      switch (path) {
        case '/healthz':
          return send(res, 200, { status: 'ok' });
        case '/readyz': {
          const ready = readiness(this.deps.status());
          return send(res, ready.ready ? 200 : 503, ready);
        }
        case '/metrics': {
          const text = await this.deps.metrics.render();
          res.writeHead(200, { 'content-type': this.deps.metrics.contentType });
          res.end(text);
          return;
        }
        case '/status':
          return send(res, 200, this.deps.status());
        default:
          return send(res, 404, {
            error: 'not_found',
            paths: ['/healthz', '/readyz', '/metrics', '/status'],
          });
      }
    } catch (error) {
      this.deps.logger.warn({ path, error: errorMessage(error) }, 'control API request failed');
      send(res, 500, { error: 'internal', message: errorMessage(error) });
    }
  }
}

/**
 * Whether a Host header names this server: `localhost[:port]`, the bound address with its port,
 * or (bound to a wildcard) any IP address with the port. A request without Host (HTTP/1.0)
 * passes: browsers always send one. Pure.
 */
export function hostAllowed(
  host: string | undefined,
  address: Pick<AddressInfo, 'address' | 'port'>,
): boolean {
  if (host === undefined) return true;
  const value = host.trim().toLowerCase();
  if (value === 'localhost' || value === `localhost:${address.port}`) return true;
  const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(value);
  if (!match || Number(match[2]) !== address.port) return false;
  const name = (match[1] as string).replace(/^\[|\]$/g, '');
  if (address.address === '0.0.0.0' || address.address === '::') return isIP(name) !== 0;
  return name === address.address.toLowerCase();
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(`${JSON.stringify(body)}\n`);
}
