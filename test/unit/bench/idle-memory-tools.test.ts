/**
 * The tools of bench:idle-breakdown and bench:idle-variants: the variant list, the grouping of
 * scripts by module, a real heap snapshot summed by kind and module, and this process's smaps
 * summed by cause.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { moduleGroup, summarizeHeapSnapshot } from '../../../bench/support/heap-snapshot-summary.js';
import { parseVariants } from '../../../bench/support/idle-variant-spec.js';
import { memoryByCause } from '../../../bench/support/memory-map.js';

const dir = mkdtempSync(join(tmpdir(), 'idle-tools-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('parseVariants', () => {
  it('reads label, flags, environment and entry of each variant', () => {
    expect(
      parseVariants('service||;both|--v8-pool-size=1 --x|MALLOC_ARENA_MAX=1 A=b=c|build/cli/main.js'),
    ).toEqual([
      { label: 'service', flags: [], env: {} },
      {
        label: 'both',
        flags: ['--v8-pool-size=1', '--x'],
        env: { MALLOC_ARENA_MAX: '1', A: 'b=c' },
        entry: resolve('build/cli/main.js'),
      },
    ]);
  });

  it('names the variant and the rule for an environment word without a value', () => {
    expect(() => parseVariants('x||MALLOC_ARENA_MAX')).toThrow(
      "BENCH_VARIANTS: 'MALLOC_ARENA_MAX' of variant 'x' must be VAR=value",
    );
  });
});

describe('moduleGroup', () => {
  it.each([
    ['node:internal/modules/esm/loader', 'node (built-in modules)'],
    ['events', 'node (built-in modules)'],
    ['file:///app/node_modules/undici/lib/core/util.js', 'undici'],
    ['file:///app/node_modules/@opentelemetry/api/build/src/index.js', '@opentelemetry/api'],
    ['/app/node_modules/a/node_modules/pino/pino.js', 'pino'],
    ['file:///usr/lib/printrelay/dist/agent/agent.js', 'printrelay agent/'],
    ['file:///work/src/printing/ipp/ipp-client.ts', 'printrelay printing/'],
    ['file:///elsewhere/x.js', 'other'],
  ])('%s -> %s', (url, group) => {
    expect(moduleGroup(url)).toBe(group);
  });
});

describe('summarizeHeapSnapshot', () => {
  it("sums a real snapshot by kind and counts a loaded script's source and functions", () => {
    const script = join(dir, 'probe-script.cjs');
    const body = `function marker(n) { return n * 2 + ${'1 + '.repeat(200)}1; }\nmarker(1);\n`;
    writeFileSync(
      script,
      `${body}require('node:v8').writeHeapSnapshot(${JSON.stringify(join(dir, 'h.heapsnapshot'))});\n`,
    );
    execFileSync(process.execPath, [script]);
    const summary = summarizeHeapSnapshot(join(dir, 'h.heapsnapshot'));
    const kinds = [...summary.byKind.values()].reduce((a, b) => a + b, 0);
    expect(kinds).toBe(summary.total);
    expect(summary.byKind.get('module source text') ?? 0).toBeGreaterThan(body.length);
    const own = summary.byModule.get('other');
    expect(own?.scripts).toBeGreaterThanOrEqual(1);
    expect(own?.source).toBeGreaterThan(body.length);
    expect(own?.compiled).toBeGreaterThan(0);
  });
});

describe.runIf(process.platform === 'linux')('memoryByCause', () => {
  it("accounts for an idle node process's whole RSS, the node binary and the V8 heap among it", async () => {
    const child = spawn(
      process.execPath,
      ['-e', "process.stdout.write('ready'); setInterval(() => {}, 1e6)"],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    try {
      await new Promise((resolve) => child.stdout.once('data', resolve));
      const pid = child.pid as number;
      const rssNow = () =>
        Number(/^Rss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1]) * 1024;
      // A process still settling (a busy machine slows its start) changes between two readings:
      // the breakdown is compared with an RSS that stood still while it was read.
      let shares = memoryByCause(pid);
      let rss = rssNow();
      for (let tries = 0; tries < 50; tries++) {
        const before = rssNow();
        shares = memoryByCause(pid);
        rss = rssNow();
        if (before === rss) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const total = [...shares.values()].reduce((sum, share) => sum + share.rss, 0);
      expect(Math.abs(total - rss) / rss).toBeLessThan(0.02);
      expect(shares.get('node binary: code')?.rss ?? 0).toBeGreaterThan(0);
      expect(shares.get('anonymous: V8 heap, code space, large allocations')?.rss ?? 0).toBeGreaterThan(0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
