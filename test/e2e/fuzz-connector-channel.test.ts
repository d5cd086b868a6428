/**
 * Property-based fuzzing of the connector channel, in process: FUZZ_RUNS messages (1,000 in
 * `npm test`, FUZZ_RUNS=10000 for the full proof) an agent could send over the WebSocket
 * (fastify injectWS, no socket), and FUZZ_RUNS event batches (POST /connector/v1/events through
 * inject) about real jobs in every state. The channel stays open, nothing answers 5xx or shows
 * internal detail, a message that is not a well-formed pong or status changes nothing stored,
 * and a refused event leaves its job as it was.
 */
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { holdJob, startTpfmHarness, type TpfmHarness } from '../integration/emulator-tpfm-harness.js';
import {
  anyJson,
  anyText,
  FUZZ_RUNS,
  FUZZ_SEED,
  FuzzTally,
  internalDetail,
  StateWatch,
} from './fuzz-support.js';

let h: TpfmHarness;
let app: FastifyInstance & { injectWS: (path: string, options: object) => Promise<WebSocket> };
let watch: StateWatch;
const jobIds: string[] = [];

beforeAll(async () => {
  h = await startTpfmHarness();
  app = h.emulator.app as unknown as typeof app;
  for (let i = 0; i < 4; i++) jobIds.push(await holdJob(h, `fuzz-${i}.pdf`));
  watch = new StateWatch(h.emulator.app.emulator.store.db);
});
afterAll(async () => {
  await h?.close();
});

/** Messages an agent might send, well-formed or not. */
const channelMessage = fc.oneof(
  anyText,
  anyJson.map((value) => JSON.stringify(value) ?? ''),
  fc
    .record({ type: fc.constantFrom('pong', 'status', 'hello', 'job.offer', ''), t: anyJson })
    .map((m) => JSON.stringify(m)),
  fc
    .record({
      type: fc.constant('status'),
      printers: fc.oneof(
        anyJson,
        fc.array(
          fc.record({
            printer_id: fc.oneof(fc.constantFrom(...['demo', 'xps', 'random']), anyText),
            status: fc.oneof(
              fc.constantFrom('Online', 'Offline', 'online', 'Inproperly Configured'),
              anyJson,
            ),
          }),
          { maxLength: 4 },
        ),
      ),
    })
    .map((m) => JSON.stringify(m)),
);

/** Whether a channel message is one the emulator acts on (the rest must change nothing). */
function wellFormed(text: string): boolean {
  try {
    const message = JSON.parse(text) as { type?: unknown; printers?: unknown };
    if (message?.type === 'pong') return true;
    return (
      message?.type === 'status' &&
      Array.isArray(message.printers) &&
      message.printers.some(
        (p: { printer_id?: unknown; status?: unknown }) =>
          [h.demoPrinterId, h.xpsPrinterId].includes(p?.printer_id as string) &&
          (p?.status === 'Online' || p?.status === 'Offline'),
      )
    );
  } catch {
    return false;
  }
}

/** Turns the placeholder printer ids of a generated message into real ones. */
function withRealIds(text: string): string {
  return text.replaceAll('"demo"', `"${h.demoPrinterId}"`).replaceAll('"xps"', `"${h.xpsPrinterId}"`);
}

const eventItem = fc.record({
  job_id: fc.oneof(
    fc.constantFrom(...[0, 1, 2, 3]).map((i) => `#${i}`),
    anyText,
  ),
  event: fc.oneof(
    anyJson,
    fc.record(
      {
        event_id: fc.oneof(fc.uuid(), anyText),
        seq: fc.oneof(fc.integer({ min: -2, max: 12 }), anyJson),
        kind: fc.oneof(
          fc.constantFrom(
            'received',
            'downloading',
            'printing',
            'progress',
            'completed',
            'failed',
            'cancelled',
          ),
          anyText,
        ),
        at: fc.oneof(
          fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
          anyText,
        ),
        pages_printed: fc.oneof(fc.integer({ min: -5, max: 1000 }), anyJson),
        pages_total: fc.oneof(fc.integer({ min: -5, max: 1000 }), anyJson),
        error_code: fc.oneof(fc.integer(), anyJson),
        message: anyText,
        printer_job_id: anyText,
      },
      { requiredKeys: [] },
    ),
  ),
});

describe('fuzzing the connector channel in process', () => {
  it(`WebSocket: ${FUZZ_RUNS} agent messages`, async () => {
    const tally = new FuzzTally();
    const socket = await app.injectWS('/connector/v1/channel', {
      headers: { authorization: `Bearer ${h.adminToken}` },
    });
    const answers: string[] = [];
    socket.on('message', (data) => answers.push(String(data)));
    let closed = false;
    socket.on('close', () => {
      closed = true;
    });
    await fc.assert(
      fc.asyncProperty(channelMessage, fc.boolean(), async (generated, binary) => {
        const text = withRealIds(generated);
        watch.before();
        socket.send(binary ? Buffer.from(text) : text);
        // The emulator handles a message synchronously on receipt; a ping-pong round makes sure it did.
        await new Promise<void>((resolve) => socket.ping(undefined, undefined, () => setImmediate(resolve)));
        const acted = wellFormed(text);
        tally.record(closed ? 0 : 200, !acted);
        const changed = acted ? [] : watch.changedTables();
        if (changed.length > 0) tally.problem(`${text.slice(0, 200)}: changed ${changed.join(', ')}`);
        if (closed) tally.problem(`${text.slice(0, 200)}: the channel closed`);
      }),
      { numRuns: FUZZ_RUNS, seed: FUZZ_SEED },
    );
    const leaks = answers.map(internalDetail).filter((leak) => leak !== undefined);
    console.info(`${tally.summary('fuzz channel messages')} answers=${answers.length}`);
    socket.terminate();
    expect(tally.problems).toEqual([]);
    expect(leaks).toEqual([]);
    expect(tally.cases).toBe(FUZZ_RUNS);
  }, 600_000);

  it(`event batches: ${FUZZ_RUNS} batches about real jobs`, async () => {
    const tally = new FuzzTally();
    const jobs = () => h.emulator.app.emulator.store.jobs;
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.array(eventItem, { maxLength: 5 }), anyJson), async (items) => {
        const payload = JSON.stringify(
          Array.isArray(items)
            ? {
                events: items.map((item) =>
                  typeof item === 'object' && item && 'job_id' in item
                    ? {
                        ...item,
                        job_id: String(item.job_id).replace(/^#(\d)$/, (_m, i) => jobIds[Number(i)] ?? ''),
                      }
                    : item,
                ),
              }
            : items,
        );
        const before = jobIds.map((id) => JSON.stringify(jobs().findById(id)));
        const res = await app.inject({
          method: 'POST',
          url: '/connector/v1/events',
          headers: { authorization: `Bearer ${h.adminToken}`, 'content-type': 'application/json' },
          payload,
        });
        const results = (res.json() as { results?: { status: number }[] }).results ?? [];
        const rejected = res.statusCode >= 400 || results.every((r) => r.status >= 300);
        tally.record(res.statusCode, rejected);
        if (res.statusCode >= 500 || results.some((r) => r.status >= 500))
          tally.problem(`${payload.slice(0, 300)} -> ${res.statusCode} ${res.body.slice(0, 300)}`);
        const leak = internalDetail(res.body);
        if (leak) tally.problem(`${payload.slice(0, 200)} shows "${leak}": ${res.body.slice(0, 300)}`);
        if (res.statusCode >= 400) {
          const after = jobIds.map((id) => JSON.stringify(jobs().findById(id)));
          if (after.join() !== before.join())
            tally.problem(`${payload.slice(0, 300)} -> ${res.statusCode} changed a job`);
        }
      }),
      { numRuns: FUZZ_RUNS, seed: FUZZ_SEED },
    );
    console.info(tally.summary('fuzz event batches'));
    expect(tally.problems).toEqual([]);
    expect(tally.cases).toBe(FUZZ_RUNS);
  }, 600_000);
});
