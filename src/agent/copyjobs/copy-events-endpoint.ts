/**
 * The agent's local endpoint for embedded device apps: `POST /copy-events/<station>` with a JSON
 * copy event (copy-events.ts), authenticated with the station's device secret (its pull-printing
 * password) as `Authorization: Bearer <secret>`. Secrets are compared in constant time (HMAC
 * digests of both sides); a client address with too many failed authentications is locked out
 * for a while (429 with Retry-After), and bodies are capped at 4 KB. Answers: 202 counted (in the
 * agent database before the answer goes out), 400 invalid event (every broken rule named), 401
 * wrong or missing secret or unknown station, 409 no card session at the station, 422 the station
 * does not count copies from the app. start() listens, stop() closes.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../lib/clock.js';
import { ValidationErrors } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import { type CopyEvent, parseCopyEvent } from './copy-events.js';
import type { CopyEventResult } from './copy-tracker.js';

/** A station as the endpoint needs it. */
export interface EventStation {
  /** The device secret. */
  secret: string;
  /** Resolves once the event was counted (stored) or refused. */
  postEvent(event: CopyEvent): Promise<CopyEventResult>;
}

/** What the endpoint is built from. */
export interface CopyEventsEndpointDeps {
  host: string;
  port: number;
  /** The station of a name, if it takes copy events. */
  station: (name: string) => EventStation | undefined;
  maxFailures: number;
  lockoutMs: number;
  clock: Clock;
  logger: Logger;
}

interface Failures {
  count: number;
  lockedUntil: number;
}

/** Client addresses tracked at most (oldest forgotten first), so failures cannot grow memory. */
const MAX_TRACKED = 10_000;

/** See the file comment. */
export class CopyEventsEndpoint {
  private app: FastifyInstance | undefined;
  private readonly key = randomBytes(32);
  private readonly failures = new Map<string, Failures>();

  constructor(private readonly deps: CopyEventsEndpointDeps) {}

  /** Listens; resolves with the base URL (http://host:port). Fastify loads only here (agents without the endpoint stay light). */
  async start(): Promise<string> {
    const { default: Fastify } = await import('fastify');
    this.app = Fastify({ logger: false, bodyLimit: 4096 });
    this.app.post('/copy-events/:station', (request, reply) => this.handle(request, reply));
    const address = await this.app.listen({ host: this.deps.host, port: this.deps.port });
    this.deps.logger.info({ address }, 'copy events endpoint listening');
    return address;
  }

  async stop(): Promise<void> {
    await this.app?.close();
  }

  private async handle(request: FastifyRequest, reply: FastifyReply) {
    const ip = request.ip;
    const now = this.deps.clock.now();
    const record = this.failures.get(ip);
    if (record && record.lockedUntil > now) {
      const seconds = Math.ceil((record.lockedUntil - now) / 1000);
      return reply
        .code(429)
        .header('retry-after', String(seconds))
        .send({ error: 'too many failed authentications' });
    }
    const name = (request.params as { station: string }).station;
    const station = this.deps.station(name);
    if (!station || !this.secretMatches(request.headers.authorization, station.secret)) {
      this.fail(ip, now);
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer')
        .send({ error: 'device secret not accepted' });
    }
    this.failures.delete(ip);
    let event: CopyEvent;
    try {
      event = parseCopyEvent(request.body);
    } catch (error) {
      if (!(error instanceof ValidationErrors)) throw error;
      return reply
        .code(400)
        .send({ error: 'invalid copy event', problems: error.errors.map((e) => e.message) });
    }
    const result = await station.postEvent(event);
    if (result === 'recorded') return reply.code(202).send({ recorded: true });
    if (result === 'no-session') return reply.code(409).send({ error: 'no card session at this station' });
    return reply.code(422).send({ error: 'this station does not count copies from device events (sources)' });
  }

  /** Constant-time comparison of a Bearer secret with the station's (HMAC digests of equal length). */
  private secretMatches(header: string | undefined, secret: string): boolean {
    const match = /^Bearer (.+)$/.exec(header ?? '');
    if (!match) return false;
    const given = createHmac('sha256', this.key)
      .update(match[1] as string)
      .digest();
    const expected = createHmac('sha256', this.key).update(secret).digest();
    return timingSafeEqual(given, expected);
  }

  private fail(ip: string, now: number): void {
    const record = this.failures.get(ip) ?? { count: 0, lockedUntil: 0 };
    record.count++;
    if (record.count >= this.deps.maxFailures) {
      record.count = 0;
      record.lockedUntil = now + this.deps.lockoutMs;
      this.deps.logger.warn({ client: ip }, 'copy events: client locked out after failed authentications');
    }
    this.failures.delete(ip);
    this.failures.set(ip, record);
    if (this.failures.size > MAX_TRACKED) this.failures.delete(this.failures.keys().next().value as string);
  }
}
