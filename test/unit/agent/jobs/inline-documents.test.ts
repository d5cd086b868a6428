import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ClaimRefusedError } from '../../../../src/agent/jobs/claiming-download.js';
import {
  type ChannelClaims,
  INLINE_HELD_MAX_BYTES,
  InlineDocuments,
  inlineOrFetch,
  offerWithDocument,
} from '../../../../src/agent/jobs/inline-documents.js';
import { RetryableError } from '../../../../src/lib/errors.js';
import { createLogger, silentLogger } from '../../../../src/log/logger.js';
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
    const take = (o: JobOffer) => {
      if (known.has(o.job_id)) return false;
      known.add(o.job_id);
      return true;
    };
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

describe('inline documents: the rules of keeping and claiming', () => {
  /** A logger whose lines the test reads. */
  const captured = () => {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({
      level: 'debug',
      destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
    });
    return { lines, logger };
  };
  const offerOf = (
    id: string,
    document: Buffer,
    sha256 = createHash('sha256').update(document).digest('hex'),
  ) => ({ job_id: id, document: { size: document.length, sha256 } }) as JobOffer;

  it('logs a document that does not match its offer, with its size and the size offered', () => {
    const { lines, logger } = captured();
    expect(new InlineDocuments(logger).keep(offer, bytes.subarray(2))).toBe(false);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'warn',
        job: 'job-1',
        bytes: bytes.length - 2,
        size: bytes.length,
        msg: 'inline document does not match its offer (size or sha256); it will be downloaded',
      }),
    ]);
  });

  it('refuses a document of the right sha256 when the offer names another size', () => {
    const inline = new InlineDocuments(silentLogger());
    const wrongSize = { ...offer, document: { ...offer.document, size: bytes.length + 1 } } as JobOffer;
    expect(inline.keep(wrongSize, bytes)).toBe(false);
  });

  it('takes an offer sha256 in capitals', () => {
    const inline = new InlineDocuments(silentLogger());
    expect(inline.keep(offerOf('a', bytes, offer.document.sha256.toUpperCase()), bytes)).toBe(true);
  });

  it('holds documents up to its limit exactly, room made again by each document taken', () => {
    const inline = new InlineDocuments(silentLogger(), 2 * bytes.length);
    expect(inline.keep(offerOf('a', bytes), bytes)).toBe(true);
    expect(inline.keep(offerOf('a', bytes), bytes)).toBe(false);
    expect(inline.keep(offerOf('b', bytes), bytes)).toBe(true);
    expect(inline.keep(offerOf('c', bytes), bytes)).toBe(false);
    expect(inline.take('a')).toBe(bytes);
    expect(inline.has('a')).toBe(false);
    expect(inline.keep(offerOf('c', bytes), bytes)).toBe(true);
    expect(inline.take('never')).toBeUndefined();
    expect(inline.keep(offerOf('d', bytes), bytes)).toBe(false);
  });

  it('holds 32 MiB by default', () => {
    expect(INLINE_HELD_MAX_BYTES).toBe(32 * 1024 * 1024);
    const inline = new InlineDocuments(silentLogger());
    const large = Buffer.alloc(INLINE_HELD_MAX_BYTES - 1);
    expect(inline.keep(offerOf('large', large), large)).toBe(true);
    const one = Buffer.from('x');
    expect(inline.keep(offerOf('one', one), one)).toBe(true);
    expect(inline.keep(offerOf('two', one), one)).toBe(false);
  });

  it('an offer the loop does not take leaves no document held; an offer without one keeps none', () => {
    const inline = new InlineDocuments(silentLogger());
    expect(offerWithDocument(() => false, inline, offer, bytes)).toBe(false);
    expect(inline.has('job-1')).toBe(false);
    expect(offerWithDocument(() => true, inline, offer, undefined)).toBe(true);
    expect(inline.has('job-1')).toBe(false);
    expect(offerWithDocument(() => true, inline, offer, bytes)).toBe(true);
    expect(inline.has('job-1')).toBe(true);
  });

  it('names the refusal of a claim, with or without its error and message', async () => {
    for (const [answer, reason] of [
      [{ ...ours, status: 409, error: 'gone', message: 'the job ended' }, 'gone: the job ended'],
      [{ ...ours, status: 409 }, 'conflict:'],
    ] as const) {
      const w = world(answer);
      w.inline.keep(offer, bytes);
      await expect(w.run()).rejects.toMatchObject({
        message: `job job-1 is not this connector's to print: ${reason}`,
      });
    }
  });

  it('claims the job by its id with the download signal; a claim unanswered is logged, one aborted is passed on', async () => {
    const { lines, logger } = captured();
    const inline = new InlineDocuments(logger);
    const asked: [string, AbortSignal][] = [];
    const failure = new RetryableError('network', 'closed');
    const claims: ChannelClaims = {
      available: () => true,
      claim: async (jobId, signal) => {
        asked.push([jobId, signal]);
        throw failure;
      },
    };
    const fetch = inlineOrFetch(inline, claims, async () => undefined, logger);
    const signal = new AbortController().signal;
    inline.keep(offer, bytes);
    await fetch(offer, '/spool/job-1.pdf', signal);
    expect(asked).toEqual([['job-1', signal]]);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'debug',
        job: 'job-1',
        msg: 'channel claim unanswered; downloading instead',
      }),
    ]);
    inline.keep(offer, bytes);
    await expect(fetch(offer, '/spool/job-1.pdf', AbortSignal.abort())).rejects.toBe(failure);
  });

  it('a document kept while the channel is down is dropped: the download takes over', async () => {
    const w = world('down');
    w.inline.keep(offer, bytes);
    await w.run();
    expect(w.inline.has('job-1')).toBe(false);
  });
});
