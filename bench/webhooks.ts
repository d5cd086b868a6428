/**
 * Webhook delivery benchmark: N events queued in the emulator's SQLite queue (a database file in
 * WAL mode, one transaction per event as a finishing job writes it; the time is printed on its
 * own line) and then delivered by the emulator's dispatcher to a local HTTPS receiver (reading
 * the queue, sending, writing the outcomes), against a bare loop of HTTPS POSTs of the same kind
 * of bodies through the very same client (createWebhookAgent with the same options: CA,
 * connections, deadlines) and the same concurrency, in the same run. The receiver (node:https,
 * a CA made with openssl) runs in a child process so neither side shares its event loop with it.
 * Both sides are warmed up, then measured over the same number of events in BENCH_ROUNDS rounds
 * whose order alternates (bare first, then ours first, ...), so load from elsewhere on the
 * machine falls on both; the ratio is the median of the rounds' ratios. The CPU time this
 * process spends per event on each side is printed too: on a busy machine it moves less than
 * the rates do.
 *
 *   npm run bench:webhooks   (BENCH_EVENTS=10000, BENCH_WARMUP_EVENTS=BENCH_EVENTS,
 *                             BENCH_CONCURRENCY=4, BENCH_ROUNDS=9)
 * Rounds of 10000 events (about half a second per side): with 3000 the rounds' ratios on a
 * two-core machine ranged over 0.67-0.99 within one run.
 * Prints each round, the medians, and a line `ratio <ours/bare>`. Goal: ratio >= 0.8.
 *
 * Then the stuck-receiver case: BENCH_STUCK_EVENTS (default 2000) events for the same healthy
 * endpoint, timed from queuing until all are delivered, alone and then with 20 endpoints of
 * another organization on a receiver that accepts connections and never answers (each holding
 * deliveries in flight), three times each. Prints the medians and last a line
 * `stuck-ratio <with / alone>` (1.0: the stuck endpoints do not slow the healthy one).
 */
import { spawn } from 'node:child_process';
import { createServer, type Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Agent } from 'undici';
import { defaultEmulatorSeed } from '../src/config/demo-seed.js';
import { systemClock } from '../src/lib/clock.js';
import { silentLogger } from '../src/log/logger.js';
import { openEmulatorStore } from '../src/emulator/emulator-store.js';
import { applySeed } from '../src/emulator/seed-loader.js';
import { SecretHasher } from '../src/emulator/store/secret-hash.js';
import { buildEvent } from '../src/emulator/webhooks/webhook-event-content.js';
import { startWebhookParts } from '../src/emulator/webhooks/webhook-parts.js';
import { OutboundAddressPolicy } from '../src/emulator/http/outbound-address-policy.js';
import { newEventId } from '../src/emulator/webhooks/webhook-publisher.js';
import { WEBHOOK_USER_AGENT, createWebhookAgent } from '../src/emulator/webhooks/webhook-sender.js';
import { makeTestCertificates } from '../test/support/https-receiver.js';
import { median } from './support/stats.js';

const events = Number(process.env.BENCH_EVENTS ?? 10000);
const warmup = Number(process.env.BENCH_WARMUP_EVENTS ?? events);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 4);
const rounds = Number(process.env.BENCH_ROUNDS ?? 9);
const stuckEvents = Number(process.env.BENCH_STUCK_EVENTS ?? 2000);
const STUCK_ENDPOINTS = 20;

/** A receiver process answering 204 to every POST; prints its URL. */
const RECEIVER = `
import { createServer } from 'node:https';
import { readFileSync } from 'node:fs';
const [key, cert] = [readFileSync(process.argv[2]), readFileSync(process.argv[3])];
const server = createServer({ key, cert, keepAliveTimeout: 60_000 }, (req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(204).end());
});
server.listen(0, '127.0.0.1', () => console.log('receiving on https://127.0.0.1:' + server.address().port + '/hook'));
`;

function eventBody(n: number): { eventId: string; body: string } {
  const eventId = newEventId();
  const facts = {
    jobId: randomUUID(),
    createdAt: Date.now(),
    outcome: 'succeeded' as const,
    ticket: { copies: 1, duplex: 'long-edge' as const, paper: { id: 9, name: 'A4' } },
    fileName: `report-${n}.pdf`,
    pagesPrinted: 2,
    printer: { id: randomUUID(), name: 'Bench printer' },
    connector: { id: randomUUID(), name: 'Bench connector' },
    user: { id: randomUUID(), email: 'bench@example.test', name: 'Bench User' },
  };
  const off = { file_name_obfuscated: false, user_email_disabled: false, user_name_disabled: false };
  return { eventId, body: JSON.stringify(buildEvent(eventId, Date.now(), facts, off, () => 7)) };
}

/**
 * Queues `count` events (one transaction each, as finishing jobs write them), then times the
 * dispatcher from its wake-up until every event is delivered. Returns both times in seconds.
 */
async function runOurs(
  parts: Awaited<ReturnType<typeof startWebhookParts>>,
  store: ReturnType<typeof openEmulatorStore>,
  endpointId: string,
  count: number,
  deliveryCpu: (micros: number) => void = () => undefined,
): Promise<{ queueSeconds: number; deliverSeconds: number }> {
  const bodies = Array.from({ length: count }, (_, i) => eventBody(i));
  const q0 = performance.now();
  for (const { eventId, body } of bodies) {
    store.transaction(() =>
      store.webhookDeliveries.enqueue(
        { eventId, topic: 'printjob_succeeded', createdAt: Date.now(), body },
        [endpointId],
        Date.now(),
      ),
    );
  }
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  parts.dispatcher.kick();
  await parts.service.drain();
  const deliverSeconds = (performance.now() - t0) / 1000;
  deliveryCpu(cpuMicros(process.cpuUsage(cpu)));
  const left = store.db.prepare('SELECT COUNT(*) AS n FROM webhook_deliveries').get() as { n: number };
  if (left.n !== 0) throw new Error(`${left.n} events were not delivered`);
  return { queueSeconds: (t0 - q0) / 1000, deliverSeconds };
}

/**
 * POSTs the same kind of bodies with `concurrency` loops over one undici Agent; returns the time
 * in seconds and the CPU time in µs, both from after the bodies were made.
 */
async function runBare(agent: Agent, url: URL, count: number): Promise<{ seconds: number; cpu: number }> {
  const bodies = Array.from({ length: count }, (_, i) => eventBody(i).body);
  let next = 0;
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const loop = async () => {
    while (next < count) {
      const body = bodies[next++]!;
      const res = await agent.request({
        origin: url.origin,
        path: url.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', 'user-agent': WEBHOOK_USER_AGENT },
        body,
      });
      await res.body.dump();
      if (res.statusCode !== 204) throw new Error(`bare POST answered ${res.statusCode}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  return { seconds: (performance.now() - t0) / 1000, cpu: cpuMicros(process.cpuUsage(cpu)) };
}

/** Starts the receiver process; resolves to its URL and a stop function. */
async function startReceiver(args: string[]): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /receiving on (\S+)/.exec(out);
      if (found) resolve(found[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the receiver exited ${code}`)));
  });
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bench-webhooks-'));
  const certs = await makeTestCertificates();
  const script = join(work, 'receiver.mjs');
  writeFileSync(script, RECEIVER);
  writeFileSync(join(work, 'key.pem'), certs.keyPem);
  writeFileSync(join(work, 'cert.pem'), certs.certPem);
  const receiver = await startReceiver([script, join(work, 'key.pem'), join(work, 'cert.pem')]);
  const store = openEmulatorStore(join(work, 'emulator.db'));
  const options = {
    extraCaPem: certs.caPem,
    perEndpoint: concurrency,
    connectionsPerOrigin: concurrency,
    pollMs: 1000,
    // The receiver listens on loopback, which the emulator refuses unless allowed.
    policy: new OutboundAddressPolicy(['127.0.0.1']),
  };
  const parts = await startWebhookParts(
    store,
    { printers: store.printers, connectors: store.connectors, users: store.users },
    systemClock,
    silentLogger(),
    join(work, 'data'),
    options,
  );
  const agent = createWebhookAgent(options);
  try {
    await applySeed(store, defaultEmulatorSeed(), Date.now(), new SecretHasher(systemClock));
    const orgId = store.organizations.findByName('Demo Org')!.id;
    const url = new URL(receiver.url);
    const endpointId = parts.service.create(orgId, { name: 'Bench', url: url.toString() }).endpoint_id;
    await runOurs(parts, store, endpointId, warmup);
    await runBare(agent, url, warmup);
    const results: { bare: number; ours: number; queue: number; bareCpu: number; oursCpu: number }[] = [];
    for (let round = 1; round <= rounds; round++) {
      let bare = 0;
      let ours = { queueSeconds: 0, deliverSeconds: 0 };
      let [bareCpu, oursCpu] = [0, 0];
      const measureBare = async () => {
        const run = await runBare(agent, url, events);
        bare = run.seconds;
        bareCpu = run.cpu / events;
      };
      const measureOurs = async () => {
        ours = await runOurs(parts, store, endpointId, events, (cpu) => {
          oursCpu = cpu / events;
        });
      };
      const order = round % 2 === 1 ? [measureBare, measureOurs] : [measureOurs, measureBare];
      for (const measure of order) await measure();
      const r = {
        bare: events / bare,
        ours: events / ours.deliverSeconds,
        queue: ours.queueSeconds,
        bareCpu,
        oursCpu,
      };
      results.push(r);
      console.log(
        `round ${round} (${round % 2 === 1 ? 'bare first' : 'ours first'}): bare ${r.bare.toFixed(0)} events/s (${bareCpu.toFixed(0)} µs CPU/event), ours ${r.ours.toFixed(0)} events/s (${oursCpu.toFixed(0)} µs CPU/event), ratio ${(r.ours / r.bare).toFixed(3)}`,
      );
    }
    const queueSeconds = median(results.map((r) => r.queue));
    console.log(
      `queue   ${events} events written to the SQLite queue in ${queueSeconds.toFixed(2)} s (median; ${((queueSeconds / events) * 1000).toFixed(3)} ms/event, one transaction each)`,
    );
    console.log(
      `bare    undici POST loop, ${concurrency} in flight, ${events} events a round: median ${median(results.map((r) => r.bare)).toFixed(0)} events/s, ${median(results.map((r) => r.bareCpu)).toFixed(0)} µs CPU/event`,
    );
    console.log(
      `ours    dispatcher from the SQLite queue (${concurrency} per endpoint), ${events} events a round: median ${median(results.map((r) => r.ours)).toFixed(0)} events/s, ${median(results.map((r) => r.oursCpu)).toFixed(0)} µs CPU/event`,
    );
    console.log(`ratio ${median(results.map((r) => r.ours / r.bare)).toFixed(3)}`);
    await stuckCase(parts, store, endpointId);
  } finally {
    await parts.stop();
    await agent.close();
    store.close();
    await receiver.stop();
    await certs.remove();
    rmSync(work, { recursive: true, force: true });
  }
}

type Parts = Awaited<ReturnType<typeof startWebhookParts>>;
type Store = ReturnType<typeof openEmulatorStore>;

/** Seconds from queuing `count` events for the endpoint until none of them is left in the queue. */
async function healthyBatch(parts: Parts, store: Store, endpointId: string, count: number): Promise<number> {
  const bodies = Array.from({ length: count }, (_, i) => eventBody(i));
  store.transaction(() => {
    for (const { eventId, body } of bodies)
      store.webhookDeliveries.enqueue(
        { eventId, topic: 'printjob_succeeded', createdAt: Date.now(), body },
        [endpointId],
        Date.now(),
      );
  });
  const left = store.db.prepare('SELECT COUNT(*) AS n FROM webhook_deliveries WHERE endpoint_id = ?');
  const t0 = performance.now();
  parts.dispatcher.kick();
  while ((left.get(endpointId) as { n: number }).n > 0) await delay(2);
  return (performance.now() - t0) / 1000;
}

/** The stuck-receiver case (see the file comment). */
async function stuckCase(parts: Parts, store: Store, endpointId: string): Promise<void> {
  const sockets = new Set<Socket>();
  const stuck = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => stuck.listen(0, '127.0.0.1', resolve));
  try {
    const alone: number[] = [];
    for (let i = 0; i < 3; i += 1) alone.push(await healthyBatch(parts, store, endpointId, stuckEvents));
    const port = (stuck.address() as { port: number }).port;
    const otherOrg = store.organizations.findByName('Other Org')!.id;
    const stuckIds = Array.from(
      { length: STUCK_ENDPOINTS },
      (_, i) =>
        parts.service.create(otherOrg, { name: `Stuck ${i}`, url: `https://127.0.0.1:${port}/${i}` })
          .endpoint_id,
    );
    store.transaction(() => {
      for (let i = 0; i < 5; i += 1) {
        const { eventId, body } = eventBody(i);
        store.webhookDeliveries.enqueue(
          { eventId, topic: 'printjob_succeeded', createdAt: Date.now(), body },
          stuckIds,
          Date.now(),
        );
      }
    });
    parts.dispatcher.kick();
    while (sockets.size < STUCK_ENDPOINTS) await delay(5);
    const beside: number[] = [];
    for (let i = 0; i < 3; i += 1) beside.push(await healthyBatch(parts, store, endpointId, stuckEvents));
    console.log(
      `stuck   ${stuckEvents} events to a healthy endpoint: alone median ${median(alone).toFixed(3)} s, beside ${STUCK_ENDPOINTS} never-answering endpoints (${sockets.size} connections held) median ${median(beside).toFixed(3)} s`,
    );
    console.log(`stuck-ratio ${(median(beside) / median(alone)).toFixed(3)}`);
  } finally {
    for (const socket of sockets) socket.destroy();
    stuck.close();
  }
}

/** User plus system CPU time of this process. */
function cpuMicros(usage: NodeJS.CpuUsage): number {
  return usage.user + usage.system;
}

await main();
