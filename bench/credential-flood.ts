/**
 * Credential-flood benchmark (issue 10, item 1): the rate of bearer-checked GET /sfapi/Status/
 * alone, then again while 8 clients post wrong Basic client credentials to the token endpoint
 * as fast as they get answers (one request at a time each, as a password-guessing script does)
 * for 2 x BENCH_SECONDS; Status is measured in both halves of the flood.
 * The emulator runs as its own process on 127.0.0.1; autocannon drives both loads from here.
 * Goal: Status keeps at least 80 % of its rate under the flood.
 *
 *   npm run bench:credentials   (BENCH_SECONDS=5 per measurement, BENCH_CONNECTIONS=10 for Status)
 * After a warm-up, Status is measured alone before and after the flood (their mean is the
 * baseline) and during it. Prints the rates, what the attackers got (status codes), and last
 * `ratio <flood/alone> ...`.
 */
import { availableParallelism, tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fetchPasswordToken } from '../src/client/oauth-client.js';
import { DEMO } from '../src/config/demo-seed.js';
import { startPart } from './support/processes.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const attackers = 8;

/** The part of autocannon's API used here (the package ships no types). */
interface CannonResult {
  requests: { average: number; total: number };
  latency: { p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats: Record<string, { count: number }>;
}
type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}) => Promise<CannonResult>;

function codes(result: CannonResult): string {
  return Object.entries(result.statusCodeStats)
    .map(([code, { count }]) => `${code}: ${count}`)
    .join(', ');
}

function describe(name: string, result: CannonResult): string {
  const rate = Math.round(result.requests.average).toString().padStart(7);
  return `${name.padEnd(34)} ${rate} req/s  p99 ${result.latency.p99} ms  (${codes(result)}; errors ${result.errors}, timeouts ${result.timeouts})`;
}

async function main(): Promise<void> {
  const moduleName = 'autocannon';
  const cannon = ((await import(moduleName)) as { default: Autocannon }).default;
  const work = mkdtempSync(join(tmpdir(), 'bench-credentials-'));
  const emulator = await startPart(
    ['emulator', '--listen', '127.0.0.1:0', '--db', ':memory:', '--data-dir', join(work, 'emulator')],
    /listening on (\S+)/,
  );
  try {
    const url = emulator.match.replace(/\/+$/, '');
    const settings = { authUrl: url, clientId: DEMO.client.id, clientSecret: DEMO.client.secret };
    const signIn = await fetchPasswordToken(settings, DEMO.user.email, DEMO.user.password, 'printing');
    const status = {
      url: `${url}/sfapi/Status/?id=bench-job`,
      connections,
      duration: seconds,
      headers: { authorization: `Bearer ${signIn.access_token}` },
    };
    const wrong = Buffer.from(`${DEMO.client.id}:not-the-secret`).toString('base64');
    const flood = {
      url: `${url}/oauth/access_token/`,
      connections: attackers,
      duration: seconds,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${wrong}` },
      body: new URLSearchParams({
        grant_type: 'password',
        username: DEMO.user.email,
        password: 'guess',
      }).toString(),
    };
    process.stdout.write(
      `credential flood: ${seconds} s per measurement, Status ${connections} connections, ${attackers} attackers, ${availableParallelism()} cores, loopback\n`,
    );
    // Warm-up (JIT, caches), then the baseline before and after the flood: the machine is shared.
    await cannon({ ...status, duration: 2 });
    const before = await cannon(status);
    process.stdout.write(`${describe('Status alone (before)', before)}\n`);
    const attacking = cannon({ ...flood, duration: 2 * seconds });
    const early = await cannon(status);
    process.stdout.write(`${describe('Status, flood first half', early)}\n`);
    const late = await cannon(status);
    process.stdout.write(`${describe('Status, flood second half', late)}\n`);
    process.stdout.write(`${describe('wrong credentials (attackers)', await attacking)}\n`);
    const after = await cannon(status);
    process.stdout.write(`${describe('Status alone (after)', after)}\n`);
    const alone = (before.requests.average + after.requests.average) / 2;
    const during = (early.requests.average + late.requests.average) / 2;
    const half = (r: CannonResult) => (r.requests.average / alone).toFixed(4);
    process.stdout.write(
      `halves ${half(early)} ${half(late)} (the first holds the scrypt runs before the locks)\n`,
    );
    process.stdout.write(
      `ratio ${(during / alone).toFixed(4)} Status rate during the flood / alone (goal >= 0.80)\n`,
    );
  } finally {
    await emulator.part.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
