import { describe, expect, it } from 'vitest';
import { ChannelRequests } from '../../../src/client/channel-requests.js';
import { RetryableError } from '../../../src/lib/errors.js';
import type { AgentMessage, JobEventBatchItem } from '../../../src/protocol/connector-channel.js';

const items: JobEventBatchItem[] = [
  { job_id: 'a', event: { event_id: 'e1', seq: 1, kind: 'received', at: '2026-01-01T00:00:00Z' } },
];

function rig(open = true) {
  const sent: AgentMessage[] = [];
  const send = (m: AgentMessage) => {
    if (open) sent.push(m);
    return open;
  };
  const requests = new ChannelRequests({ send }, 1000);
  return { sent, requests };
}

describe('ChannelRequests', () => {
  it('sends an events message and resolves with the results of its own batch id', async () => {
    const { sent, requests } = rig();
    const pending = requests.postEvents(items);
    const message = sent[0] as Extract<AgentMessage, { type: 'events' }>;
    expect(message).toMatchObject({ type: 'events', events: items });
    expect(requests.answer({ type: 'events_result', batch_id: 'other', results: [] })).toBe(false);
    const results = [{ event_id: 'e1', status: 204 }];
    expect(requests.answer({ type: 'events_result', batch_id: message.batch_id, results })).toBe(true);
    expect(await pending).toEqual(results);
    expect(requests.inFlight).toBe(0);
  });

  it('a batch refused whole, or answered with results that do not fit, rejects as retryable', async () => {
    const { sent, requests } = rig();
    const refused = requests.postEvents(items);
    const first = sent[0] as Extract<AgentMessage, { type: 'events' }>;
    requests.answer({
      type: 'events_result',
      batch_id: first.batch_id,
      error: { status: 400, error: 'invalid_request', message: 'bad', field: 'events' },
    });
    await expect(refused).rejects.toBeInstanceOf(RetryableError);
    const garbled = requests.postEvents(items);
    const second = sent[1] as Extract<AgentMessage, { type: 'events' }>;
    requests.answer({ type: 'events_result', batch_id: second.batch_id, results: [] });
    await expect(garbled).rejects.toMatchObject({ code: 'bad_answer' });
  });

  it('a channel that closes before the answer fails every request waiting (outcome unknown)', async () => {
    const { sent, requests } = rig();
    const batch = requests.postEvents(items);
    const claim = requests.claim('job-1');
    expect(sent.map((m) => m.type)).toEqual(['events', 'claim']);
    requests.closed();
    await expect(batch).rejects.toMatchObject({ code: 'network' });
    await expect(claim).rejects.toMatchObject({ code: 'network' });
    expect(requests.inFlight).toBe(0);
  });

  it('a claim resolves with its answer; a channel that is not open fails at once', async () => {
    const { sent, requests } = rig();
    const claim = requests.claim('job-1');
    const message = sent[0] as Extract<AgentMessage, { type: 'claim' }>;
    requests.answer({
      type: 'claim_result',
      claim_id: message.claim_id,
      job_id: 'job-1',
      status: 409,
      error: 'conflict',
    });
    expect(await claim).toMatchObject({ status: 409, error: 'conflict' });
    await expect(rig(false).requests.claim('job-2')).rejects.toBeInstanceOf(RetryableError);
  });

  it('a claim with events (protocol 4) sends them in its frame and checks their results', async () => {
    const { sent, requests } = rig();
    const event = items[0]?.event;
    if (!event) throw new Error('fixture');
    const claim = requests.claim('a', undefined, [event]);
    const message = sent[0] as Extract<AgentMessage, { type: 'claim' }>;
    expect(message.events).toEqual([event]);
    requests.answer({
      type: 'claim_result',
      claim_id: message.claim_id,
      job_id: 'a',
      status: 200,
      events: [{ event_id: 'e1', status: 204 }],
    });
    expect((await claim).events).toEqual([{ event_id: 'e1', status: 204 }]);
    // Results that do not fit the events sent: retryable (the events stay and go again).
    const wrong = requests.claim('a', undefined, [event]);
    const second = sent[1] as Extract<AgentMessage, { type: 'claim' }>;
    requests.answer({
      type: 'claim_result',
      claim_id: second.claim_id,
      job_id: 'a',
      status: 200,
      events: [],
    });
    await expect(wrong).rejects.toMatchObject({ code: 'bad_answer' });
    // A claim without events sends no `events` field.
    void requests.claim('b').catch(() => {});
    expect(sent[2]).not.toHaveProperty('events');
    requests.closed();
  });
});
