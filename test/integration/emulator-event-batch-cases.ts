/**
 * Integration cases of the batch event route (POST /connector/v1/events), registered by
 * emulator-connector.test.ts inside its own emulator and connector (see `describeEventBatches`),
 * so they run with the rest of the connector channel's tests. No resources of their own.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type {
  JobEvent,
  JobEventBatchItem,
  JobEventItemResult,
} from '../../src/protocol/connector-channel.js';
import { call, type Harness, passwordToken, registration } from './emulator-harness.js';

/** A 200 answer has results; a 400 has the error body's field and rule. */
type BatchAnswer = { results: JobEventItemResult[]; field?: string; rule?: string };

/** What the cases need from the enclosing test file (read once its beforeAll ran). */
export interface BatchFixture {
  h: Harness;
  token: string;
  orgId: string;
  newJob(options?: { deleteAfterPrint?: boolean }): Promise<string>;
  event(kind: JobEvent['kind'], seq: number, extra?: Partial<JobEvent>): JobEvent;
}

/** Registers the batch route's cases; `fixture` is called inside each test. */
export function describeEventBatches(fixture: () => BatchFixture): void {
  describe('event batches', () => {
    const postBatch = (body: unknown, headers: Record<string, string> = {}) =>
      call<BatchAnswer>(fixture().h.baseUrl, 'POST', '/connector/v1/events', fixture().token, body, headers);
    const claimedJob = async (options: { deleteAfterPrint?: boolean } = {}) => {
      const { h, token, newJob } = fixture();
      const jobId = await newJob(options);
      await call(h.baseUrl, 'POST', `/connector/v1/jobs/${jobId}/claim`, token);
      return jobId;
    };
    const status = (jobId: string) => {
      const { h, orgId } = fixture();
      return h.emulator.app.emulator.jobs.status(orgId, jobId)!;
    };
    const item = (job_id: string, event: JobEvent): JobEventBatchItem => ({ job_id, event });
    const ok = (items: JobEventBatchItem[]) =>
      items.map((i) => ({ event_id: i.event.event_id, status: 204 }));

    it('applies the events of several jobs in order, as the single route does, and finishes jobs', async () => {
      const { event } = fixture();
      const a = await claimedJob({ deleteAfterPrint: true });
      const b = await claimedJob();
      const path = fixture().h.emulator.app.emulator.store.jobs.findById(a)!.file.path;
      const items = [
        item(a, event('received', 1)),
        item(b, event('received', 1)),
        item(a, event('printing', 2, { pages_total: 3, printer_job_id: '41' })),
        item(b, event('printing', 2, { pages_total: 5 })),
        item(a, event('completed', 3, { pages_printed: 3 })),
      ];
      const res = await postBatch({ events: items });
      expect(res.status).toBe(200);
      expect(res.body.results).toEqual(ok(items));
      expect(status(a)).toMatchObject({
        jobstatus: 0,
        jobstatusstring: 'PRINTED|COMPLETE|',
        jobpagesprinted: 3,
      });
      expect(status(b)).toMatchObject({ jobstatus: 129, jobstatusstring: 'PRINTING|', jobpagestotal: 5 });
      expect(existsSync(path)).toBe(false);
    });

    it('acknowledges repeated events (in a later batch or the same one) without applying them again', async () => {
      const { event } = fixture();
      const jobId = await claimedJob();
      const printing = item(jobId, event('printing', 2, { pages_total: 4 }));
      const first = [item(jobId, event('received', 1)), printing];
      expect((await postBatch({ events: first })).body.results).toEqual(ok(first));
      const again = [...first, printing, item(jobId, event('progress', 3, { pages_printed: 1 }))];
      const res = await postBatch({ events: again });
      expect(res.body.results).toEqual(ok(again));
      expect(status(jobId)).toMatchObject({ jobstatusstring: 'PRINTING|', jobpagesprinted: 1 });
      // The older event that arrives later is acknowledged but does not move the job back.
      const stale = [item(jobId, event('received', 2))];
      expect((await postBatch({ events: stale })).body.results).toEqual(ok(stale));
      expect(status(jobId).jobstatusstring).toBe('PRINTING|');
    });

    it.each([
      ['an empty body', undefined],
      ['no events field', { items: [] }],
      ['events not an array', { events: 'x' }],
      ['no events', { events: [] }],
    ])('answers 400 naming events for %s', async (_name, body) => {
      const res = await postBatch(body ?? {});
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ field: 'events', rule: 'must be an array of 1 to 100 items' });
    });

    it('answers 400 for 101 events and accepts 100; nothing of a refused batch is applied', async () => {
      const { event } = fixture();
      const jobId = await claimedJob();
      const items = Array.from({ length: 101 }, (_, i) => item(jobId, event('progress', i + 1)));
      const tooMany = await postBatch({ events: items });
      expect(tooMany.status).toBe(400);
      expect(tooMany.body.field).toBe('events');
      expect(status(jobId).jobstatus).toBe(1246);
      const hundred = await postBatch({ events: items.slice(0, 100) });
      expect(hundred.status).toBe(200);
      expect(hundred.body.results).toHaveLength(100);
      expect(status(jobId).jobstatusstring).toBe('PRINTING|');
    });

    it('answers 400 naming events[i].job_id for an item without a string job_id', async () => {
      const { event } = fixture();
      const res = await postBatch({
        events: [item('x', event('received', 1)), { event: event('received', 1) }],
      });
      expect(res.status).toBe(400);
      expect(res.body.field).toBe('events[1].job_id');
    });

    it('answers an unknown job with a 404 result and applies the other events', async () => {
      const { event } = fixture();
      const jobId = await claimedJob();
      const unknown = item('00000000-0000-4000-8000-000000000000', event('received', 1));
      const mine = item(jobId, event('received', 1));
      const res = await postBatch({ events: [unknown, mine] });
      expect(res.status).toBe(200);
      expect(res.body.results).toEqual([
        { event_id: unknown.event.event_id, status: 404, error: 'not_found', message: expect.any(String) },
        { event_id: mine.event.event_id, status: 204 },
      ]);
      expect(status(jobId).jobstatusstring).toBe('SPOOLING|');
    });

    it('skips the later events of a job whose event failed; other jobs go on; a resend completes it', async () => {
      const { event } = fixture();
      const a = await claimedJob();
      const b = await claimedJob();
      const bad = { ...event('printing', 2), kind: 'exploded' } as unknown as JobEvent;
      const completed = item(a, event('completed', 3));
      const items = [item(a, event('received', 1)), item(a, bad), item(b, event('received', 1)), completed];
      const res = await postBatch({ events: items });
      expect(res.status).toBe(200);
      expect(res.body.results.map((r) => [r.status, r.error ?? ''])).toEqual([
        [204, ''],
        [400, 'invalid_request'],
        [204, ''],
        [409, 'skipped'],
      ]);
      expect(res.body.results[1]?.field).toBe('events[1].event.kind');
      expect(status(a).jobstatusstring).toBe('SPOOLING|');
      expect(status(b).jobstatusstring).toBe('SPOOLING|');
      const resend = [item(a, event('printing', 2)), completed];
      expect((await postBatch({ events: resend })).body.results).toEqual(ok(resend));
      expect(status(a).jobstatus).toBe(0);
    });

    it("refuses events for a job held by another connector with the single route's status", async () => {
      const { h, token, event } = fixture();
      const jobId = await claimedJob();
      const other = (
        await call(
          h.baseUrl,
          'POST',
          '/connector/v1/register',
          token,
          registration('CH-BATCH-2', 'Batch other'),
        )
      ).body.id as string;
      const headers = { 'x-host-id': other };
      const single = await call(
        h.baseUrl,
        'POST',
        `/connector/v1/jobs/${jobId}/events`,
        token,
        event('received', 1),
        headers,
      );
      const foreign = item(jobId, event('received', 1));
      const res = await postBatch({ events: [foreign, item(jobId, event('printing', 2))] }, headers);
      expect(res.status).toBe(200);
      expect(single.status).toBe(409);
      expect(res.body.results[0]).toMatchObject({
        status: 409,
        error: single.body.error,
        field: 'events[0].job_id',
      });
      expect(res.body.results[1]).toMatchObject({ status: 409, error: 'skipped' });
      expect(status(jobId).jobstatus).toBe(1246);
    });

    it('needs the printing.connectors scope', async () => {
      const { h, event } = fixture();
      const printingOnly = await passwordToken(h.baseUrl, 'printing');
      const res = await call(h.baseUrl, 'POST', '/connector/v1/events', printingOnly, {
        events: [item('x', event('received', 1))],
      });
      expect(res.status).toBe(403);
    });
  });
}
