/**
 * Token benchmark: throughput of the emulator's token endpoint (password grant; refresh grant
 * with real rotation, every request spending the refresh token the previous answer returned)
 * and of the bearer-checked GET /sfapi/Status/ (RS256 verification on every request), each
 * against a bare Fastify route of the same method and path measured in the same run. Both
 * servers run as separate processes on 127.0.0.1; autocannon drives them from this process.
 *
 *   npm run bench:token        (BENCH_SECONDS=3 per measurement, BENCH_CONNECTIONS=10)
 * Prints requests/s of each measurement and last one line `ratio <ours/bare> <what>` each.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { availableParallelism, tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fetchPasswordToken } from '../src/client/oauth-client.js';
import { DEMO } from '../src/config/demo-seed.js';
import { startPart } from './support/processes.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const scope = 'printing';
const basic = `Basic ${Buffer.from(`${DEMO.client.id}:${DEMO.client.secret}`).toString('base64')}`;
const form = { 'content-type': 'application/x-www-form-urlencoded', authorization: basic };

/** The part of autocannon's API used here (the package ships no types). */
interface CannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (req: CannonRequest, context: object) => CannonRequest;
  onResponse?: (status: number, body: string, context: object) => void;
}
interface CannonResult {
  requests: { average: number; total: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  requests?: CannonRequest[];
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}) => Promise<CannonResult>;

interface Measurement {
  name: string;
  ours: CannonResult;
  bare: CannonResult;
}

/** A bare Fastify server with the same routes, answering fixed JSON; prints its URL. */
const BARE_SERVER = `
import Fastify from 'fastify';
import formbody from '@fastify/formbody';
const app = Fastify({ logger: false });
await app.register(formbody);
const token = { access_token: 'x'.repeat(600), token_type: 'Bearer', expires_in: 3600, scope: 'printing', refresh_token: 'y'.repeat(43) };
app.post('/oauth/access_token/', async (request) => ({ ...token, grant: request.body.grant_type }));
app.get('/sfapi/Status/', async (request) => ({ id: request.query.id, jobstatus: 1240, status: 'unknown' }));
console.log('listening on ' + (await app.listen({ host: '127.0.0.1', port: 0 })));
`;

async function startBare(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', BARE_SERVER], {
    cwd: join(import.meta.dirname, '..'),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /listening on (\S+)/.exec(out);
      if (found) resolve(found[1]!);
    });
    child.once('exit', (code) => reject(new Error(`bare server exited ${code}`)));
  });
  return { url, child };
}

/** Refresh requests that each spend the token the previous answer returned (a pool per run). */
function refreshChain(initial: string[]): CannonRequest {
  const pool = [...initial];
  return {
    method: 'POST',
    path: '/oauth/access_token/',
    headers: form,
    setupRequest: (req) => {
      const token = pool.shift() ?? 'pool-empty';
      return {
        ...req,
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }).toString(),
      };
    },
    onResponse: (status, body) => {
      if (status === 200) pool.push((JSON.parse(body) as { refresh_token: string }).refresh_token);
    },
  };
}

async function measure(cannon: Autocannon, url: string, requests: CannonRequest[]): Promise<CannonResult> {
  return cannon({ url, connections, duration: seconds, requests });
}

function line(m: Measurement): string {
  const rate = (r: CannonResult) => `${Math.round(r.requests.average).toString().padStart(7)} req/s`;
  const problems = (r: CannonResult) =>
    r.non2xx + r.errors + r.timeouts > 0
      ? ` (non-2xx ${r.non2xx}, errors ${r.errors}, timeouts ${r.timeouts})`
      : '';
  return `${m.name.padEnd(26)} ours ${rate(m.ours)}${problems(m.ours)}   bare fastify ${rate(m.bare)}${problems(m.bare)}`;
}

async function main(): Promise<void> {
  const moduleName = 'autocannon';
  const cannon = ((await import(moduleName)) as { default: Autocannon }).default;
  const work = mkdtempSync(join(tmpdir(), 'bench-token-'));
  const emulator = await startPart(
    ['emulator', '--listen', '127.0.0.1:0', '--db', ':memory:', '--data-dir', join(work, 'emulator')],
    /listening on (\S+)/,
  );
  const bare = await startBare();
  try {
    const ours = emulator.match.replace(/\/+$/, '');
    const settings = { authUrl: ours, clientId: DEMO.client.id, clientSecret: DEMO.client.secret };
    const password = new URLSearchParams({
      grant_type: 'password',
      username: DEMO.user.email,
      password: DEMO.user.password,
      scope,
    }).toString();
    const signIns = await Promise.all(
      Array.from({ length: connections * 2 }, () =>
        fetchPasswordToken(settings, DEMO.user.email, DEMO.user.password, scope),
      ),
    );
    const bearer = { authorization: `Bearer ${signIns[0]!.access_token}` };
    const passwordRequest: CannonRequest = {
      method: 'POST',
      path: '/oauth/access_token/',
      headers: form,
      body: password,
    };
    const statusRequest: CannonRequest = {
      method: 'GET',
      path: '/sfapi/Status/?id=bench-job',
      headers: bearer,
    };
    const results: Measurement[] = [];
    const run = async (name: string, oursRequest: CannonRequest, bareRequest: CannonRequest) => {
      const ourResult = await measure(cannon, ours, [oursRequest]);
      // Requests still queued in the emulator when autocannon stopped must not slow the next run.
      await fetch(`${ours}/.well-known/jwks.json`).then((r) => r.arrayBuffer());
      const bareResult = await measure(cannon, bare.url, [bareRequest]);
      results.push({ name, ours: ourResult, bare: bareResult });
      process.stdout.write(`${line(results.at(-1)!)}\n`);
    };
    process.stdout.write(
      `token benchmark: ${seconds} s per measurement, ${connections} connections, ${availableParallelism()} cores, loopback\n`,
    );
    await run('password grant', passwordRequest, passwordRequest);
    const tokens = signIns.map((s) => s.refresh_token!);
    await run('refresh grant (rotating)', refreshChain(tokens), refreshChain(tokens));
    await run('GET /sfapi/Status (bearer)', statusRequest, statusRequest);
    for (const m of results) {
      process.stdout.write(
        `ratio ${(m.ours.requests.average / m.bare.requests.average).toFixed(4)} ${m.name}\n`,
      );
    }
  } finally {
    bare.child.kill('SIGTERM');
    await emulator.part.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
