import { describe, expect, it } from 'vitest';
import { ChunkText, PrintRun } from '../../../src/client/tpfm-print-run.js';

/** A PrintRun over `chunks` as the body, with a trailer result of 0. */
function runOver(chunks: Buffer[]): PrintRun {
  const body = {
    async *[Symbol.asyncIterator]() {
      yield* chunks;
    },
    destroy() {},
  };
  return new PrintRun(body, () => ({ 'x-fmp-return': '0' }), {}, 1, 'Pages');
}

async function events(run: PrintRun) {
  const seen = [];
  for await (const event of run) seen.push(event);
  return seen;
}

describe('PrintRun reading the progress body', () => {
  it('rebuilds lines cut anywhere across chunks', async () => {
    const wire = '1/3\r\n2/3\r\n3/3\r\nX-FMP-Return: 0\r\n';
    const chunks = [wire.slice(0, 2), wire.slice(2, 7), wire.slice(7, 20), wire.slice(20)].map((t) =>
      Buffer.from(t),
    );
    const run = runOver(chunks);
    expect(await events(run)).toEqual([1, 2, 3].map((page) => ({ kind: 'pages', page, total: 3 })));
    expect(await run.result()).toEqual({ code: 0, source: 'trailer' });
  });

  it('keeps a character cut between two chunks whole in the error that names the line', async () => {
    const line = Buffer.from('1/1\r\nSeite fünf\r\n');
    const cut = line.indexOf(0xc3) + 1;
    const run = runOver([line.subarray(0, cut), line.subarray(cut)]);
    await expect(events(run)).rejects.toThrow('unrecognised progress line "Seite fünf"');
  });
});

describe('ChunkText', () => {
  it('reads ASCII chunks as they are and decodes UTF-8 from the first other chunk on', () => {
    const text = new ChunkText();
    expect(text.of(Buffer.from('2/5\r\n'))).toBe('2/5\r\n');
    const euro = Buffer.from('€');
    expect(text.of(euro.subarray(0, 1))).toBe('');
    expect(text.of(Buffer.concat([euro.subarray(1), Buffer.from('3/5')]))).toBe('€3/5');
    expect(text.of(Buffer.from([0xe2]))).toBe('');
    expect(text.end()).toBe('\ufffd');
  });
});
