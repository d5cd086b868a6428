/**
 * A printer that is offline, busy or answering garbage: the job runner (with the real IPP
 * backend) retries with backoff, loses nothing, and tells the cloud why the job waits with a
 * `waiting` event whose message is exact. Then the real printer (ippeveprinter) answers on the
 * same address and the job prints once. Peers: ippeveprinter behind a switchable TCP front
 * (nothing listening = connection refused; a garbage server; a tiny IPP server answering
 * server-error-busy).
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { JobRunner } from '../../src/agent/jobs/job-runner.js';
import { ManualClock } from '../../src/lib/clock.js';
import { silentLogger } from '../../src/log/logger.js';
import { IppBackend } from '../../src/printing/ipp/ipp-backend.js';
import { encodeMessage } from '../../src/printing/ipp/ipp-codec.js';
import { attr, operationPreamble } from '../../src/printing/ipp/ipp-attributes.js';
import { TAG } from '../../src/printing/ipp/ipp-constants.js';
import { openAgentDatabase } from '../../src/store/agent-db.js';
import { JobLedger } from '../../src/store/job-ledger.js';
import type { NewJobEvent } from '../../src/store/outbox.js';
import { startIppEvePrinter, type RunningIppEvePrinter } from '../support/ippeveprinter.js';
import { jobOffer } from '../support/job-offers.js';
import { freePort, peersAvailable } from '../support/peers.js';
import { quietControl } from '../support/job-control.js';

const enabled = peersAvailable('ippeveprinter');

type Mode = 'off' | 'printer' | 'garbage' | 'busy';

/** One port whose listener the test swaps: nothing, the printer, garbage, or a busy IPP server. */
async function startFront(port: number, printerPort: number, busyPort: number) {
  let server: Server | undefined;
  const sockets = new Set<Socket>();
  const listen = (handler: (client: Socket) => void) =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        sockets.add(client);
        client.on('close', () => sockets.delete(client));
        client.on('error', () => client.destroy());
        handler(client);
      });
      server.listen(port, '127.0.0.1', resolve);
    });
  const forward = (to: number) => (client: Socket) => {
    const upstream = connect(to, '127.0.0.1');
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    client.pipe(upstream).pipe(client);
  };
  const stop = async () => {
    for (const s of sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server?.close(() => resolve()));
    server = undefined;
  };
  return {
    async set(mode: Mode) {
      await stop();
      if (mode === 'printer') await listen(forward(printerPort));
      if (mode === 'busy') await listen(forward(busyPort));
      if (mode === 'garbage')
        await listen((client) => {
          client.once('data', () => client.end('220 garbage service ready\r\n'));
        });
    },
    stop,
  };
}

/** An IPP server that answers every request with server-error-busy (0x0507). */
async function startBusyPrinter() {
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = Buffer.concat(chunks);
      const body = encodeMessage({
        version: { major: 2, minor: 0 },
        code: 0x0507,
        requestId: request.length >= 8 ? request.readInt32BE(4) : 1,
        groups: [
          {
            tag: TAG.OPERATION,
            attributes: [
              ...operationPreamble('ipp://127.0.0.1/ipp/print').slice(0, 2),
              attr(TAG.TEXT, 'status-message', 'Printer busy.'),
            ],
          },
        ],
      });
      res.writeHead(200, { 'content-type': 'application/ipp', 'content-length': body.length });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.skipIf(!enabled)('a printer offline, busy or answering garbage', () => {
  let printer: RunningIppEvePrinter;
  let busy: Awaited<ReturnType<typeof startBusyPrinter>>;
  let front: Awaited<ReturnType<typeof startFront>>;
  let port: number;
  let dir: string;
  let events: { jobId: string; event: NewJobEvent }[];
  let clock: ManualClock;
  let runner: JobRunner;
  let ledger: JobLedger;
  let backend: IppBackend;

  beforeAll(async () => {
    printer = await startIppEvePrinter({ name: 'Faulty Printer' });
    busy = await startBusyPrinter();
    port = await freePort();
    front = await startFront(port, printer.port, busy.port);
  });

  afterAll(async () => {
    await front?.stop();
    await busy?.close();
    await printer?.stop();
  });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'printer-faults-'));
    events = [];
    clock = new ManualClock(1_700_000_000_000);
    ledger = new JobLedger(openAgentDatabase(':memory:'), clock);
    backend = new IppBackend(`ipp://127.0.0.1:${port}/ipp/print`, {
      logger: silentLogger(),
      timeoutMs: 2_000,
    });
    runner = new JobRunner({
      ledger,
      emit: (jobId, event) => events.push({ jobId, event }),
      download: async (_offer, target) => writeFileSync(target, 'a document that waits for its printer\n'),
      jobs: {
        retry_initial_ms: 20,
        retry_max_ms: 20,
        give_up_after_s: 3600,
        download_attempts: 3,
        status_poll_ms: 20,
      },
      spoolDir: dir,
      clock,
      logger: silentLogger(),
      random: () => 1,
    });
  });

  afterEach(async () => {
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const waiting = (jobId: string) =>
    events.filter((e) => e.jobId === jobId && e.event.kind === 'waiting').map((e) => e.event.message);
  /** The documents the printer kept for the job (one .dat per printed job; .prn is its output). */
  const printed = (jobId: string) =>
    readdirSync(printer.spoolDir).filter((f) => f.endsWith(`printrelay-${jobId}.dat`));

  /** Runs the job while the front is in `mode`; once a waiting event came, the printer comes back. */
  async function runThrough(jobId: string, mode: Mode, beforeReport?: () => void) {
    await front.set(mode);
    ledger.add({
      ...jobOffer(jobId),
      document: { ...jobOffer(jobId).document, content_type: 'text/plain', extension: 'txt' },
    });
    const running = runner.run(jobId, backend, quietControl());
    await expect
      .poll(
        () => {
          beforeReport?.();
          return waiting(jobId).length;
        },
        { timeout: 15_000, interval: 20 },
      )
      .toBe(1);
    await front.set('printer');
    await running;
    return ledger.get(jobId);
  }

  it('offline (connection refused): reports it, then prints once when the printer is back', async () => {
    const job = await runThrough('off1', 'off');
    expect(waiting('off1')).toEqual(['waiting: printer offline (connection refused), retry in 1 s']);
    expect(job?.state).toBe('completed');
    // (progress events come or not, depending on when the state is read; the rest is exact)
    const kinds = events.filter((e) => e.jobId === 'off1').map((e) => e.event.kind);
    expect(kinds.filter((k) => k !== 'progress')).toEqual([
      'downloading',
      'waiting',
      'printing',
      'completed',
    ]);
    expect(printed('off1')).toHaveLength(1);
  });

  it('answering garbage: reports it, then prints once when the printer is back', async () => {
    const job = await runThrough('garbage1', 'garbage');
    expect(waiting('garbage1')).toEqual([
      'waiting: printer answered garbage (not an HTTP answer (it starts "220 garbage service ready")), retry in 1 s',
    ]);
    expect(job?.state).toBe('completed');
    expect(printed('garbage1')).toHaveLength(1);
  });

  it('busy (server-error-busy): reported once it lasted 5 s on the clock, then prints once', async () => {
    let advanced = false;
    const job = await runThrough('busy1', 'busy', () => {
      // The busy answers have been coming for a moment: 5 s pass on the agent's clock.
      if (!advanced && ledger.get('busy1')?.lastError?.includes('server-error-busy')) {
        expect(waiting('busy1')).toEqual([]);
        clock.advance(5_000);
        advanced = true;
      }
    });
    expect(waiting('busy1')).toEqual(['waiting: printer busy (server-error-busy), retry in 1 s']);
    expect(job?.state).toBe('completed');
    expect(printed('busy1')).toHaveLength(1);
  });
});
