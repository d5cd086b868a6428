/**
 * Preloaded into an agent by bench:idle-breakdown (`node --require <this file>`): on SIGUSR2 it
 * writes V8's own figures (heap by space, code statistics, malloced memory) to
 * `$BENCH_MEMORY_PROBE.json`, then a heap snapshot to `$BENCH_MEMORY_PROBE.heapsnapshot`, then
 * an empty `$BENCH_MEMORY_PROBE.done`. Plain CommonJS so node loads it without the ESM loader
 * and it adds almost nothing to what it measures. The bench removes the files.
 */
'use strict';
const { writeFileSync } = require('node:fs');
const v8 = require('node:v8');

const out = process.env.BENCH_MEMORY_PROBE;
if (out) {
  process.on('SIGUSR2', () => {
    const figures = {
      heap: v8.getHeapStatistics(),
      spaces: v8.getHeapSpaceStatistics(),
      code: v8.getHeapCodeStatistics(),
      memory: process.memoryUsage(),
    };
    writeFileSync(`${out}.json`, JSON.stringify(figures), { mode: 0o600 });
    v8.writeHeapSnapshot(`${out}.heapsnapshot`);
    writeFileSync(`${out}.done`, '', { mode: 0o600 });
  });
}
