import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ClaimRefusedError } from '../../../../src/agent/jobs/claiming-download.js';
import {
  type ChannelClaims,
  InlineDocuments,
  inlineOrFetch,
  offerWithDocument,
} from '../../../../src/agent/jobs/inline-documents.js';
import { RetryableError } from '../../../../src/lib/errors.js';
import { silentLogger } from '../../../../src/log/logger.js';
import type { ChannelClaimResult, JobOffer } from '../../../../src/protocol/connector-channel.js';

const bytes = Buffer.from('%PDF-1.4 inline\n');
const offer = {
  job_id: 'job-1',
  document: { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') },
} as JobOffer;

function world(answer: ChannelClaimResult | Error | 'down') {
  const inline = new InlineDocuments(silentLogger());
  const fetched: string[] = [];
  const claims: ChannelClaims = {
    available: () => answer !== 'down',
    claim: async () => {
      if (answer instanceof Error) throw answer;
      return answer as ChannelClaimResult;
    },
  };
  const fetch = inlineOrFetch(
    inline,
    claims,
    async (o) => {
      fetched.push(o.job_id);
      return undefined;
    },
    silentLogger(),
  );
  return {
    inline,
    fetched,
    run: () => fetch(offer, '/spool/job-1.pdf', new AbortController().signal),
  };
}

const ours: ChannelClaimResult = { type: 'claim_result', claim_id: 'c1', job_id: 'job-1', status: 200 };

describe('inline documents', () => {
  it('keeps only a document of the offer size and sha256', () => {
    const inline = new InlineDocuments(silentLogger());
    expect(inline.keep(offer, Buffer.from('%PDF-1.4 INLINE\n'))).toBe(false);
    expect(inline.keep(offer, bytes.subarray(1))).toBe(false);
    expect(inline.keep(offer, bytes)).toBe(true);
    expect(inline.take('job-1')).toBe(bytes);
    expect(inline.take('job-1')).toBeUndefined();
  });

  it('a repeated offer neither replaces nor drops the document of the first', () => {
    const inline = new InlineDocuments(silentLogger());
    const known = new Set<string>();
    const take = (o: JobOffer) => !known.has(o.job_id) && (known.add(o.job_id), true);
    expect(offerWithDocument(take, inline, offer, bytes)).toBe(true);
    expect(offerWithDocument(take, inline, offer, bytes)).toBe(false);
    expect(inline.has('job-1')).toBe(true);
  });

  it('claimed on the channel (200): the document from memory, no download', async () => {
    const w = world(ours);
    w.inline.keep(offer, bytes);
    expect(await w.run()).toBe(bytes);
    expect(w.fetched).toEqual([]);
  });

  it('refused on the channel (409): the job is not ours, nothing fetched', async () => {
    const w = world({ ...ours, status: 409, error: 'conflict', message: 'held by another connector' });
    w.inline.keep(offer, bytes);
    await expect(w.run()).rejects.toBeInstanceOf(ClaimRefusedError);
    expect(w.fetched).toEqual([]);
  });

  it.each([
    ['the channel is down', 'down' as const],
    ['the claim got no answer', new RetryableError('network', 'the channel closed before the answer')],
    ['the claim answered 404', { ...ours, status: 404, error: 'not_found' }],
  ])('%s: the claiming download decides', async (_name, answer) => {
    const w = world(answer);
    w.inline.keep(offer, bytes);
    expect(await w.run()).toBeUndefined();
    expect(w.fetched).toEqual(['job-1']);
  });

  it('without an inline document: the claiming download', async () => {
    const w = world(ours);
    await w.run();
    expect(w.fetched).toEqual(['job-1']);
  });
});
