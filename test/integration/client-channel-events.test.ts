import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChannelClient } from '../../src/client/channel-client.js';
import { HttpClient } from '../../src/client/http-base.js';
import { RetryableError } from '../../src/lib/errors.js';
import type { JobEventBatchItem } from '../../src/protocol/connector-channel.js';

const items: JobEventBatchItem[] = [
  { job_id: 'a', event: { event_id: 'e1', seq: 1, kind: 'received', at: '2024-01-01T00:00:00Z' } },
  { job_id: 'b', event: { event_id: 'e2', seq: 1, kind: 'printing', at: '2024-01-01T00:00:01Z' } },
];

describe('ChannelClient.postEvents', () => {
  let server: Server;
  let http: HttpClient;
  let answer: { status: number; body: unknown };
  let received: { method?: string; url?: string; body: unknown }[];
  beforeEach(async () => {
    received = [];
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk) => {
        text += chunk;
      });
      req.on('end', () => {
        received.push({ method: req.method, url: req.url, body: JSON.parse(text) });
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    http = new HttpClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      timeoutMs: 2000,
    });
  });
  afterEach(async () => {
    await http.close();
    await new Promise((r) => server.close(r));
  });

  it('posts { events } to /connector/v1/events and returns the results in order', async () => {
    const results = [
      { event_id: 'e1', status: 204 },
      { event_id: 'e2', status: 404, error: 'not_found', message: 'job b not found' },
    ];
    answer = { status: 200, body: { results } };
    expect(await new ChannelClient(http).postEvents(items)).toEqual(results);
    expect(received).toEqual([{ method: 'POST', url: '/connector/v1/events', body: { events: items } }]);
  });

  it.each([
    ['no results', {}],
    ['too few results', { results: [{ event_id: 'e1', status: 204 }] }],
    [
      'results in another order',
      {
        results: [
          { event_id: 'e2', status: 204 },
          { event_id: 'e1', status: 204 },
        ],
      },
    ],
    ['a result without a status', { results: [{ event_id: 'e1', status: 204 }, { event_id: 'e2' }] }],
  ])('refuses an answer with %s as a RetryableError', async (_name, body) => {
    answer = { status: 200, body };
    const error = await new ChannelClient(http).postEvents(items).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetryableError);
    expect((error as RetryableError).code).toBe('bad_answer');
  });

  it('a 5xx for the whole batch throws a RetryableError', async () => {
    answer = { status: 500, body: { error: 'internal_error', message: 'internal error' } };
    await expect(new ChannelClient(http).postEvents(items)).rejects.toBeInstanceOf(RetryableError);
  });
});
