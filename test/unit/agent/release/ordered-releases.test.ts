import { describe, expect, it } from 'vitest';
import { releaseInOrder } from '../../../../src/agent/release/ordered-releases.js';

/** A release the test answers and ends by hand. */
function gate() {
  let answer = () => {};
  let end = (_value: string) => {};
  const ended = new Promise<string>((resolve) => {
    end = resolve;
  });
  return {
    ended,
    answer: () => answer(),
    end: (value: string) => end(value),
    bind: (a: () => void) => (answer = a),
  };
}

describe('releaseInOrder', () => {
  it('starts the next release only once the one before was answered, at most `window` running', async () => {
    const gates = [gate(), gate(), gate()];
    const started: number[] = [];
    const done = releaseInOrder(
      [0, 1, 2],
      2,
      (i, answered) => {
        started.push(i);
        gates[i]!.bind(answered);
        return gates[i]!.ended;
      },
      () => false,
    );
    await Promise.resolve();
    expect(started).toEqual([0]);
    gates[0]!.answer();
    await expect.poll(() => started).toEqual([0, 1]);
    gates[1]!.answer();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(started).toEqual([0, 1]);
    gates[0]!.end('a');
    await expect.poll(() => started).toEqual([0, 1, 2]);
    gates[2]!.end('c');
    gates[1]!.end('b');
    expect(await done).toEqual({ results: ['a', 'b', 'c'], failure: undefined });
  });

  it('a release that ends without an answer frees its place; stopped() ends the starts', async () => {
    let stop = false;
    const started: number[] = [];
    const result = await releaseInOrder(
      [0, 1, 2],
      1,
      async (i) => {
        started.push(i);
        if (i === 1) stop = true;
        return i * 10;
      },
      () => stop,
    );
    expect(started).toEqual([0, 1]);
    expect(result).toEqual({ results: [0, 10], failure: undefined });
  });

  it('a release that throws stops further starts and is handed back after the running ones end', async () => {
    const error = new Error('refused');
    const result = await releaseInOrder(
      ['a', 'b', 'c'],
      3,
      async (item) => {
        if (item === 'b') throw error;
        return item;
      },
      () => false,
    );
    expect(result.results).toEqual(['a']);
    expect(result.failure).toEqual({ error });
  });
});
