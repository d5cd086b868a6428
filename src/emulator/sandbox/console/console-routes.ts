/**
 * The console's routes: the page (/_emulator/) and its script, the snapshot (GET
 * /_emulator/state), the live stream (GET /_emulator/events: server-sent events, one `state`
 * event with the whole snapshot at once and again whenever it changed: at once after a fault
 * rule or the clock changed, else within LIVE_CHECK_MS), a job's document
 * (GET /_emulator/jobs/<id>/document: the connector download's sender, so Range, If-Range, HEAD
 * and the download slots as there) and a webhook retry (POST
 * /_emulator/webhooks/<endpoint>/events/<event>/retry). Data routes follow sandbox-access.ts;
 * the page and script hold no data. Streams end when the emulator closes.
 */
import { existsSync } from 'node:fs';
import { Type as T } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { GoneError, NotFoundError } from '../../../lib/errors.js';
import type { FileSender } from '../../http/file-sender.js';
import type { WebhookService } from '../../webhooks/webhook-service.js';
import { errorResponses, otherContent } from '../../http/schemas.js';
import { sandboxReader } from '../sandbox-access.js';
import { CONSOLE_CSP, renderConsolePage } from './console-page.js';
import { CONSOLE_SCRIPT } from './console-script.js';
import { type ConsoleSnapshotContext, type ConsoleSources, consoleSnapshot } from './console-snapshot.js';

/** How often an open stream looks for changes no signal announces (jobs, printers, mail, ...). */
export const LIVE_CHECK_MS = 500;

const common = { tags: ['emulator'], security: [{}, { bearer: [] }] as Record<string, string[]>[] };
/** The page and its script hold no data: anyone may fetch them. */
const open = { tags: ['emulator'], security: [{}] as Record<string, string[]>[] };
const AnyJson = T.Object({}, { additionalProperties: true });

/** The sandbox's parts the console reads: its clock, its rules and the records it is lent. */
type SandboxParts = ConsoleSources;

/** What the console uses: what its snapshot reads, the webhook retries it offers, the document sender. */
export interface ConsoleContext extends ConsoleSnapshotContext {
  webhooks: WebhookService;
  /** Sends a job's document as the connector download does (Range, HEAD, pooled buffers, slots). */
  documents: FileSender;
}

/** Registers the console's routes. */
export function registerConsoleRoutes(
  app: FastifyInstance,
  context: ConsoleContext,
  parts: SandboxParts,
): void {
  app.get(
    '/_emulator/',
    {
      schema: {
        ...open,
        operationId: 'GetEmulatorConsole',
        response: { 200: otherContent('text/html', 'the console page') },
      },
    },
    async (_request, reply) =>
      reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', CONSOLE_CSP)
        .header('cache-control', 'no-store')
        .send(renderConsolePage()),
  );
  app.get(
    '/_emulator/console.js',
    {
      schema: {
        ...open,
        operationId: 'GetEmulatorConsoleScript',
        response: { 200: otherContent('text/javascript', 'the console script') },
      },
    },
    async (_request, reply) =>
      reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-store').send(CONSOLE_SCRIPT),
  );
  app.get(
    '/_emulator/state',
    {
      schema: {
        ...common,
        operationId: 'GetEmulatorState',
        response: { 200: AnyJson, ...errorResponses(401, 403) },
      },
    },
    async (request) => consoleSnapshot(context, parts, (await sandboxReader(request)).organizationId),
  );
  registerLiveStream(app, context, parts);
  app.get(
    '/_emulator/jobs/:id/document',
    {
      schema: {
        ...common,
        operationId: 'GetEmulatorJobDocument',
        params: T.Object({ id: T.String() }),
        response: {
          200: otherContent('application/octet-stream', 'the document as submitted'),
          206: otherContent('application/octet-stream', 'the requested byte range'),
          416: otherContent('text/plain', 'the range is not satisfiable'),
          ...errorResponses(401, 403, 404, 410, 503),
        },
      },
    },
    async (request, reply) => {
      const reader = await sandboxReader(request);
      const { id } = request.params as { id: string };
      const job = parts.records.jobs.findById(id.toLowerCase());
      if (!job || (reader.organizationId !== undefined && job.organizationId !== reader.organizationId))
        throw new NotFoundError(`job ${id}`);
      if (job.fileDeleted || !existsSync(job.file.path))
        throw new GoneError(`the document of job ${id} was deleted`);
      const name = job.file.name.replace(/[^\w.\- ]/g, '_');
      reply.header('content-disposition', `attachment; filename="${name}"`);
      const { path, size, sha256, contentType } = job.file;
      await context.documents.send(
        request,
        reply,
        { path, size, etag: `"${sha256}"`, contentType },
        job.organizationId,
      );
      return reply;
    },
  );
  app.post(
    '/_emulator/webhooks/:endpoint/events/:event/retry',
    {
      schema: {
        ...common,
        operationId: 'RetryEmulatorWebhookEvent',
        params: T.Object({ endpoint: T.String(), event: T.String() }),
        response: { 200: AnyJson, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) => {
      const reader = await sandboxReader(request);
      const { endpoint, event } = request.params as { endpoint: string; event: string };
      const owner = parts.records.webhookEndpoints.findById(endpoint.toLowerCase())?.organizationId;
      if (owner === undefined || (reader.organizationId !== undefined && owner !== reader.organizationId))
        throw new NotFoundError(`webhook endpoint ${endpoint}`);
      return context.webhooks.retryEvent(owner, endpoint, event);
    },
  );
}

function registerLiveStream(app: FastifyInstance, context: ConsoleContext, parts: SandboxParts): void {
  const streams = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const end of [...streams]) end();
  });
  app.get(
    '/_emulator/events',
    {
      schema: {
        ...common,
        operationId: 'FollowEmulatorState',
        response: { 200: otherContent('text/event-stream', 'state events'), ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      const { organizationId } = await sandboxReader(request);
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
      });
      let last = '';
      const send = () => {
        const data = JSON.stringify(consoleSnapshot(context, parts, organizationId));
        if (data === last) return;
        last = data;
        raw.write(`event: state\ndata: ${data}\n\n`);
      };
      const timer = setInterval(send, LIVE_CHECK_MS);
      const stopFaults = parts.faults.onChange(() => setImmediate(send));
      const stopClock = parts.clock.onAdvance(() => setImmediate(send));
      const end = () => {
        clearInterval(timer);
        stopFaults();
        stopClock();
        streams.delete(end);
        raw.end();
      };
      streams.add(end);
      request.raw.socket.on('close', end);
      send();
    },
  );
}
