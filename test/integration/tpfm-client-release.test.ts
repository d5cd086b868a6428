import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReleaseMode } from '../../src/config/release-station-schema.js';
import type { SessionSummary } from '../../src/agent/release/release-station.js';
import type { JobChoice, ReleaseUi } from '../../src/agent/release/release-ui.js';
import { createReleaseStation } from '../../src/agent/release/station-factory.js';
import { loadReaderProfiles } from '../../src/cardreader/reader-profiles.js';
import { sendSwipe } from '../../src/cardreader/socket/socket-reader.js';
import { systemClock } from '../../src/lib/clock.js';
import { createLogger } from '../../src/log/logger.js';
import { Redactor } from '../../src/log/redaction.js';
import { formatJobListBody } from '../../src/protocol/tpfm-bodies.js';
import { formatProgressChunk, formatResultLine } from '../../src/protocol/tpfm-progress.js';
import { freePort } from '../support/peers.js';

const PASSWORD = 'floor2-pull-secret';
const CARD = '77705923'; // 04A1B2C3 after hex2dec
const jobs = [1, 2].map((n) => ({
  fileName: `job${n}.spl`,
  size: 10,
  created: 1,
  modified: 1,
  attributes: 0,
  jobId: `J${n}`,
  displayName: `Doc ${n}`,
  driverName: 'D',
}));

/** A pull service: job list, PrintJob with chunked progress and trailers, CancelPrintJob. */
class PullService {
  requests: string[] = [];
  private held: ServerResponse[] = [];
  server: Server = createServer((req, res) => this.handle(req, res));

  constructor(private readonly holdPrints: boolean) {}

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://x');
    const cmd = url.searchParams.get('Cmd') ?? '';
    const user = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString();
    this.requests.push(
      `${cmd} ${user} ${url.searchParams.get('Job') ?? url.searchParams.get('ProcId') ?? ''}`.trim(),
    );
    if (user !== `${CARD}:${PASSWORD}`) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic' }).end();
    } else if (cmd === 'GetJobList') {
      res.writeHead(200, { 'X-FMP-Visible': '1' }).end(formatJobListBody(jobs));
    } else if (cmd === 'PrintJob') {
      res.writeHead(200, { 'X-FMP-ProcId': '5', 'X-FMP-ProgressType': 'Pages', Trailer: 'X-FMP-Return' });
      res.write(formatProgressChunk({ kind: 'pages', page: 1, total: 2 }));
      if (this.holdPrints) this.held.push(res);
      else this.finish(res, 0);
    } else if (cmd === 'CancelPrintJob') {
      for (const held of this.held.splice(0)) this.finish(held, 10);
      res.end();
    } else {
      res.end();
    }
  }

  private finish(res: ServerResponse, code: number): void {
    if (code === 0) res.write(formatProgressChunk({ kind: 'pages', page: 2, total: 2 }));
    res.write(formatResultLine(code));
    res.addTrailers({ 'X-FMP-Return': String(code) });
    res.end();
  }

  /** Ends every held print with success. */
  finishHeld(): void {
    for (const held of this.held.splice(0)) this.finish(held, 0);
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function station(mode: ReleaseMode, service: PullService) {
  const pullUrl = await service.listen();
  cleanups.push(() => new Promise((resolve) => service.server.close(resolve)));
  const port = await freePort();
  const lines: string[] = [];
  const redactor = new Redactor();
  const logger = createLogger({
    level: 'debug',
    redactor,
    destination: { write: (l: string) => void lines.push(l) },
  });
  const messages: string[] = [];
  const ui: ReleaseUi = {
    message: (kind, text) => messages.push(`${kind}: ${text}`),
    progress: (job, e) =>
      messages.push(`${job.fileName} ${e.kind === 'pages' ? `${e.page}/${e.total}` : e.percent}`),
    choose: async (list): Promise<JobChoice> => ({ print: [list[1]!], delete: [] }),
  };
  const built = createReleaseStation(
    {
      name: 'floor-2',
      reader: `socket://127.0.0.1:${port}`,
      printer: 'P1',
      pull_url: pullUrl,
      password: PASSWORD,
      mode,
      transforms: ['hex2dec'],
      idle_timeout_s: 60,
      lang: 'en',
      parallel_releases: 16,
    },
    { logger, redactor, clock: systemClock, ui, profiles: await loadReaderProfiles() },
  );
  const ended = new Promise<SessionSummary>((resolve) => built.station.onSessionEnd(resolve));
  await built.station.start();
  cleanups.push(() => built.client.close());
  cleanups.push(() => built.station.stop());
  return { uri: `socket://127.0.0.1:${port}`, ended, messages, lines };
}

describe('release station with the real TpfmClient over HTTP', () => {
  it('releases the chosen job end to end without logging the card or password', async () => {
    const service = new PullService(false);
    const { uri, ended, messages, lines } = await station('choose', service);
    await sendSwipe(uri, '04A1B2C3');
    expect(await ended).toMatchObject({ reason: 'done', printed: ['job2.spl'] });
    expect(service.requests).toEqual([
      `GetJobList ${CARD}:${PASSWORD}`,
      `PrintJob ${CARD}:${PASSWORD} job2.spl`,
    ]);
    expect(messages).toEqual([
      'info: Releasing Doc 2',
      'job2.spl 1/2',
      'job2.spl 2/2',
      'info: Printed Doc 2',
    ]);
    const log = lines.join('');
    expect(log).toContain('release session ended');
    expect(log).not.toContain(CARD);
    expect(log).not.toContain('04A1B2C3');
    expect(log).not.toContain(PASSWORD);
  });

  it('mode all sends the next PrintJob while the one before still streams, and reports in list order', async () => {
    const service = new PullService(true);
    const { uri, ended } = await station('all', service);
    await sendSwipe(uri, '04A1B2C3');
    // Both prints run at once, each on its own connection, the first one answered first.
    await expect
      .poll(() => service.requests)
      .toEqual([
        `GetJobList ${CARD}:${PASSWORD}`,
        `PrintJob ${CARD}:${PASSWORD} job1.spl`,
        `PrintJob ${CARD}:${PASSWORD} job2.spl`,
      ]);
    service.finishHeld();
    expect(await ended).toMatchObject({ reason: 'done', printed: ['job1.spl', 'job2.spl'], failed: [] });
  });

  it('cancels the running print by ProcId when the card is removed', async () => {
    const service = new PullService(true);
    const { uri, ended, messages } = await station('while-present', service);
    await sendSwipe(uri, '04A1B2C3');
    await expect.poll(() => messages).toContain('job1.spl 1/2');
    await sendSwipe(uri, 'remove');
    expect(await ended).toMatchObject({ reason: 'removed', cancelled: ['job1.spl'], printed: [] });
    expect(service.requests).toContain(`CancelPrintJob ${CARD}:${PASSWORD} 5`);
  });
});
