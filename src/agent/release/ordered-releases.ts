/**
 * Runs the releases of a session in list order with a bounded number in flight: the next one
 * starts once the one before it was answered (its `answered` callback ran, or it ended) and
 * fewer than `window` are running. A release that throws stops further starts; the running ones
 * end first. No resources of its own.
 */

/** What the releases gave, by list position (undefined: never started or threw), and the first error. */
export interface OrderedResults<T> {
  results: (T | undefined)[];
  failure: { error: unknown } | undefined;
}

/**
 * Starts `release(item, answered)` for each item in order, at most `window` at once, until
 * `stopped()` says so; resolves once every started release ended.
 */
export async function releaseInOrder<I, T>(
  items: readonly I[],
  window: number,
  release: (item: I, answered: () => void) => Promise<T>,
  stopped: () => boolean,
): Promise<OrderedResults<T>> {
  const running = new Set<Promise<void>>();
  const results: (T | undefined)[] = [];
  let failure: { error: unknown } | undefined;
  for (const [index, item] of items.entries()) {
    while (running.size >= window && !failure) await Promise.race(running);
    if (stopped() || failure) break;
    let answered = () => {};
    const started = new Promise<void>((resolve) => {
      answered = resolve;
    });
    const run: Promise<void> = release(item, answered)
      .then(
        (result) => {
          results[index] = result;
        },
        (error: unknown) => {
          failure ??= { error };
        },
      )
      .finally(() => running.delete(run));
    running.add(run);
    await Promise.race([started, run]);
  }
  await Promise.all(running);
  return { results, failure };
}
