/**
 * Applies the switchboard's HTTP rules to the emulated service's requests, in a preValidation
 * hook (after the body is parsed, before any check or sign-in): `respond` answers instead of the
 * operation, `latency_ms` waits before it runs, `cut` lets it run and then sends the headers and
 * half of the body before cutting the connection, `slow_chunks_ms` sends the body in 16 KiB
 * pieces with a pause before each (a /TPFM/ document download, for one), `drop_connector` answers 503 to every request
 * naming the connector (X-Host-Id), its channel's reconnects included. Every response a rule touched carries
 * `x-printrelay-fault: <rule id>`. The sandbox's own routes (/_emulator/) are never touched.
 * `cut` and `slow_chunks_ms` are set on the request (http/response-shaping.ts) and applied to the
 * body by the onSend hooks here, or by the file sender for the documents it writes itself.
 */
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TokenService } from '../../oauth/token-service.js';
import type { SandboxRecords } from '../sandbox-records.js';
import { bearerToken } from '../../accounts/bearer-auth.js';
import type { FaultKind } from './fault-rule.js';
import { cutPoint, SLOW_CHUNK_BYTES } from '../../http/response-shaping.js';
import type { FaultCaller, FaultSwitchboard, FaultTarget } from './fault-switchboard.js';

const HTTP_KINDS: readonly FaultKind[] = ['respond', 'latency', 'cut', 'slow_chunks', 'drop_connector'];
/** The header naming the rule that touched a response. */
export const FAULT_HEADER = 'x-printrelay-fault';

/** The operationId of the request's route, if it has one. */
export function operationOf(request: FastifyRequest): string | undefined {
  const schema = request.routeOptions.schema as { operationId?: string } | undefined;
  return schema?.operationId;
}

/** What the HTTP rules read: the token check that names a request's caller. */
export interface HttpFaultContext {
  tokens: TokenService;
}

/** Adds the hooks; call before the service's routes are registered. */
export function installHttpFaults(
  app: FastifyInstance,
  board: FaultSwitchboard,
  context: HttpFaultContext,
  records: SandboxRecords,
): void {
  app.addHook('preValidation', async (request, reply) => {
    if (!board.has(HTTP_KINDS) || isSandboxPath(request)) return;
    const rule = await board.take(HTTP_KINDS, requestTarget(request, context, records));
    if (!rule) return;
    reply.header(FAULT_HEADER, rule.id);
    request.log.info({ fault: rule.id, kind: rule.action.kind }, 'fault rule applied');
    const action = rule.action;
    if (action.kind === 'latency') await sleep(action.ms);
    else if (action.kind === 'cut') request.responseShaping = { kind: 'cut' };
    else if (action.kind === 'slow_chunks') request.responseShaping = { kind: 'slow', pauseMs: action.ms };
    else if (action.kind === 'drop_connector') {
      const message = `fault rule ${rule.id} dropped the connector`;
      return reply.code(503).send({ error: 'fault_injected', message });
    } else if (action.kind === 'respond') {
      reply.code(action.status).headers(action.headers);
      if (action.body === undefined) return reply.send(faultBody(rule.id, action.status));
      if (typeof action.body === 'string') return reply.send(action.body);
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(action.body));
    }
  });
  app.addHook('onSend', async (request, _reply, payload) => {
    const shaping = request.responseShaping;
    if (shaping?.kind !== 'slow') return payload;
    request.responseShaping = null;
    const pause = shaping.pauseMs;
    const source = typeof payload === 'string' ? Buffer.from(payload) : payload;
    if (Buffer.isBuffer(source)) return Readable.from(slowly([source], pause));
    if (source instanceof Readable) return Readable.from(slowly(source, pause));
    return payload;
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.responseShaping?.kind !== 'cut') return payload;
    request.responseShaping = null;
    const source = typeof payload === 'string' ? Buffer.from(payload) : payload;
    if (Buffer.isBuffer(source)) {
      reply.header('content-length', source.length);
      return Readable.from(cutAfter([source], Math.ceil(source.length / 2)));
    }
    if (source instanceof Readable) {
      return Readable.from(cutAfter(source, cutPoint(Number(reply.getHeader('content-length')))));
    }
    return payload;
  });
}

function isSandboxPath(request: FastifyRequest): boolean {
  return (request.routeOptions.url ?? request.url).toLowerCase().startsWith('/_emulator');
}

/** The default body of a `respond` rule without one: the emulator's error shape. */
function faultBody(ruleId: string, status: number): Record<string, string> {
  return { error: 'fault_injected', message: `fault rule ${ruleId} answered ${status}` };
}

/** Yields the first `limit` bytes of `source`, then fails (so the connection is cut). */
async function* cutAfter(source: AsyncIterable<Buffer> | Iterable<Buffer>, limit: number) {
  let sent = 0;
  for await (const chunk of source) {
    const piece = chunk.subarray(0, limit - sent);
    sent += piece.length;
    yield piece;
    if (sent >= limit) break;
  }
  // Let the piece reach the socket before the failure destroys it.
  await new Promise((resolve) => setImmediate(resolve));
  throw new Error('fault rule: connection cut mid-response');
}

/** Yields `source` in SLOW_CHUNK_BYTES pieces, each after `ms` of waiting. */
async function* slowly(source: AsyncIterable<Buffer> | Iterable<Buffer>, ms: number) {
  for await (const chunk of source)
    for (let at = 0; at < chunk.length; at += SLOW_CHUNK_BYTES) {
      await sleep(ms);
      yield chunk.subarray(at, at + SLOW_CHUNK_BYTES);
    }
}

/** What the switchboard may ask of a request. */
function requestTarget(
  request: FastifyRequest,
  context: HttpFaultContext,
  records: SandboxRecords,
): FaultTarget {
  let caller: Promise<FaultCaller | undefined> | undefined;
  const host = request.headers['x-host-id'];
  return {
    operation: operationOf(request),
    ...(typeof host === 'string' ? { connector: host } : {}),
    mentions: (printerId) => mentions(request, printerId.toLowerCase()),
    caller: () => {
      caller ??= callerOf(request, context, records);
      return caller;
    },
  };
}

function mentions(request: FastifyRequest, id: string): boolean {
  for (const part of [request.params, request.query, request.body]) {
    if (typeof part !== 'object' || part === null) continue;
    for (const value of Object.values(part as Record<string, unknown>))
      if (typeof value === 'string' && value.toLowerCase() === id) return true;
  }
  return false;
}

async function callerOf(
  request: FastifyRequest,
  context: HttpFaultContext,
  records: SandboxRecords,
): Promise<FaultCaller | undefined> {
  const token = bearerToken(request);
  if (token === undefined) return undefined;
  try {
    const claims = await context.tokens.verifyAccessToken(token);
    if (claims.tk === 'client') return { organizationId: claims.org, clientId: claims.client_id };
    const user = records.users.findById(claims.sub);
    return {
      organizationId: claims.org,
      userId: claims.sub,
      ...(user ? { userEmail: user.email } : {}),
      clientId: claims.client_id,
    };
  } catch {
    return undefined;
  }
}
