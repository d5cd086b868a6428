/** channelOrRest: which way each batch of events goes. */
import { beforeEach, describe, expect, it } from 'vitest';
import { channelOrRest, type PostEvents } from '../../../../src/agent/jobs/outbox-sender.js';
import type { JobEventBatchItem } from '../../../../src/protocol/connector-channel.js';

describe('channelOrRest', () => {
  const items: JobEventBatchItem[] = [];
  const answered = (way: string): PostEvents => {
    const answer: PostEvents = async (batch, signal) => {
      calls.push({ way, batch, signal });
      return [];
    };
    return answer;
  };
  let calls: { way: string; batch: JobEventBatchItem[]; signal: AbortSignal }[] = [];
  beforeEach(() => {
    calls = [];
  });

  it('posts over the channel while it is up, over REST otherwise, asking again for each batch', async () => {
    let up = true;
    const poster = channelOrRest(() => up, answered('channel'), answered('rest'));
    const signal = new AbortController().signal;
    await poster(items, signal);
    up = false;
    await poster(items, signal);
    up = true;
    await poster(items, signal);
    expect(calls.map((c) => c.way)).toEqual(['channel', 'rest', 'channel']);
    expect(calls.every((c) => c.batch === items && c.signal === signal)).toBe(true);
  });
});
