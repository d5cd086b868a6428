/**
 * What one PrintJob exchange with its progress stream costs the release station's side, against
 * the same exchange in bare node: the floor of the spec's wire for the release path's one HTTP
 * exchange per job that the direct path does not make (docs/performance.md, Round 6).
 *
 *   npx tsx bench/tpfm-exchange.ts   (BENCH_EXCHANGES=2000, BENCH_ROUNDS=5, BENCH_WINDOW=16)
 *
 * The server (bench/support/tpfm-exchange-server.ts) answers as the emulator answers a one-page
 * PrintJob, in a process of its own; pinned (bench/support/pinning.ts) it runs on core 1 and
 * this process on core 0. Per round and variant, BENCH_EXCHANGES exchanges with BENCH_WINDOW
 * running at once (the station's parallel_releases default), each read to its result; the CPU
 * per exchange is this process's (`process.cpuUsage`), after a warm-up round of each. Variants,
 * their order alternating by round:
 *   station  the station's TpfmClient: printJob, its progress events, result()
 *   undici   bare undici: a Pool's request, the body read whole, the trailer read
 *   http     bare node: http.request on a keep-alive agent, the body's data events, the trailer
 * Prints the median CPU per exchange of each and `station/http`, the station client's cost over
 * bare node's.
 */
import { loadavg } from 'node:os';
import { TpfmClient } from '../src/client/tpfm-client.js';
import { Pool } from '../src/client/undici-core.js';
import { silentLogger } from '../src/log/logger.js';
import { barePrintJobClient, cpuOf, PRINT_JOB_QUERY } from './support/bare-print-job.js';
import { nodeChild, outputOf, stopChild } from './support/floor-children.js';
import { pinPlan, pinProcess } from './support/pinning.js';
import { median } from './support/stats.js';

const exchanges = Number(process.env.BENCH_EXCHANGES ?? 2000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const window = Number(process.env.BENCH_WINDOW ?? 16);
const CARD = '04A1B2C3D4';
const authorization = `Basic ${Buffer.from(`${CARD}:bench`).toString('base64')}`;
const load = () =>
  loadavg()
    .map((v) => v.toFixed(2))
    .join(' ');

type Variant = 'station' | 'undici' | 'http';
type Exchange = () => Promise<void>;

function stationExchange(origin: string): { run: Exchange; close: () => Promise<void> } {
  const client = new TpfmClient({
    baseUrl: origin,
    password: 'bench',
    userAgent: 'bench',
    logger: silentLogger(),
  });
  return {
    run: async () => {
      const run = await client.printJob(CARD, { job: 'job-1.spl', printer: 'Bench', progress: true });
      for await (const _ of run) void _;
      if ((await run.result()).code !== 0) throw new Error('station: PrintJob failed');
    },
    close: () => client.close(),
  };
}

function undiciExchange(origin: string): { run: Exchange; close: () => Promise<void> } {
  const pool = new Pool(origin);
  return {
    run: async () => {
      const response = await pool.request({
        path: PRINT_JOB_QUERY,
        method: 'GET',
        headers: { authorization },
      });
      await response.body.text();
      if (response.trailers['x-fmp-return'] !== '0') throw new Error('undici: no trailer');
    },
    close: () => pool.close(),
  };
}

async function main(): Promise<void> {
  console.log(`load average at start: ${load()}`);
  const pin = pinPlan();
  const server = nodeChild('tpfm-exchange-server.ts', [], pin?.cloudCore);
  try {
    const port = Number(/listening (\d+)/.exec(await outputOf(server, /listening \d+/))?.[1]);
    if (pin) pinProcess(process.pid, pin.agentCore);
    const origin = `http://127.0.0.1:${port}`;
    const bare = barePrintJobClient(port, authorization);
    const http = { run: bare.exchange, close: async () => bare.close() };
    const variants = { station: stationExchange(origin), undici: undiciExchange(origin), http };
    const names = Object.keys(variants) as Variant[];
    for (const name of names) await cpuOf(variants[name].run, exchanges, window);
    const perExchange: Record<Variant, number[]> = { station: [], undici: [], http: [] };
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? names : [...names].reverse();
      const line: string[] = [];
      for (const name of order) {
        const us = (await cpuOf(variants[name].run, exchanges, window)) / exchanges;
        perExchange[name].push(us);
        line.push(`${name} ${us.toFixed(1)} us`);
      }
      console.log(`round ${r + 1} (load ${load()}): ${line.join(', ')}`);
    }
    for (const name of names) await variants[name].close();
    for (const name of names) {
      const values = perExchange[name];
      console.log(
        `${name.padEnd(8)} CPU per exchange median ${median(values).toFixed(1)} us (min ${Math.min(...values).toFixed(1)}, max ${Math.max(...values).toFixed(1)}, ${rounds} rounds)`,
      );
    }
    const ratios = perExchange.station.map((v, i) => v / (perExchange.http[i] as number));
    console.log(`station/http median ${median(ratios).toFixed(2)}`);
  } finally {
    await stopChild(server);
  }
  console.log(`load average at end: ${load()}`);
}

await main();
