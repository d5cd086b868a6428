import { afterEach, describe, expect, it } from 'vitest';
import type { JobListOptions, PrintJobOptions, TpfmJobList } from '../../../../src/client/tpfm-client.js';
import type { TpfmPrintResult, TpfmProgressEvent } from '../../../../src/client/tpfm-print-run.js';
import type { ReleaseMode } from '../../../../src/config/release-station-schema.js';
import {
  type PrintRunLike,
  type ReleaseClient,
  ReleaseStation,
  type SessionSummary,
  type StationCopies,
} from '../../../../src/agent/release/release-station.js';
import type { JobChoice, ReleaseUi } from '../../../../src/agent/release/release-ui.js';
import {
  SocketCardReader,
  sendSwipe,
  swipeAndWait,
} from '../../../../src/cardreader/socket/socket-reader.js';
import { ManualClock } from '../../../../src/lib/clock.js';
import { createLogger, silentLogger } from '../../../../src/log/logger.js';
import { Redactor } from '../../../../src/log/redaction.js';
import type { TpfmJob } from '../../../../src/protocol/tpfm-job-list.js';

const RAW_CARD = '04A1B2C3';
const CARD = '77705923'; // hex2dec of 04A1B2C3

function job(n: number): TpfmJob {
  return {
    fileName: `job${n}.spl`,
    size: 100,
    created: 1,
    modified: 1,
    attributes: 0,
    jobId: `J${n}`,
    displayName: `Doc ${n}`,
    driverName: 'D',
  };
}

/** A print whose pages are released one by one by the test (or all at once). */
class FakeRun implements PrintRunLike {
  aborted = false;
  private wake: (() => void) | undefined;
  private allowed: number;
  constructor(
    readonly procId: number,
    private readonly pages: number,
    private readonly code: number,
    hold: boolean,
  ) {
    this.allowed = hold ? 1 : pages;
  }
  async *[Symbol.asyncIterator](): AsyncGenerator<TpfmProgressEvent> {
    for (let page = 1; page <= this.pages; page++) {
      while (page > this.allowed && !this.aborted) await new Promise<void>((r) => (this.wake = r));
      if (this.aborted) throw new Error('aborted');
      yield { kind: 'pages', page, total: this.pages };
    }
  }
  async result(): Promise<TpfmPrintResult> {
    return { code: this.code, source: 'trailer' };
  }
  abort(): void {
    this.aborted = true;
    this.wake?.();
  }
  /** Lets a held print run to its end. */
  finish(): void {
    this.allowed = this.pages;
    this.wake?.();
  }
}

class FakeClient implements ReleaseClient {
  calls: string[] = [];
  runs: FakeRun[] = [];
  users = new Set<string>();
  constructor(
    private readonly list: TpfmJobList,
    private readonly opts: { hold?: boolean; failJob?: string; throwJob?: string } = {},
  ) {}
  async getJobList(user: string, options?: JobListOptions): Promise<TpfmJobList> {
    this.users.add(user);
    this.calls.push(`list ${options?.printer}`);
    return this.list;
  }
  async printJob(user: string, options: PrintJobOptions): Promise<PrintRunLike> {
    this.users.add(user);
    this.calls.push(`print ${options.job}`);
    if (options.job === this.opts.throwJob) throw new Error('connection refused');
    const run = new FakeRun(
      100 + this.runs.length,
      2,
      options.job === this.opts.failJob ? 5 : 0,
      this.opts.hold ?? false,
    );
    this.runs.push(run);
    return run;
  }
  async cancelPrintJob(user: string, procId: number): Promise<void> {
    this.users.add(user);
    this.calls.push(`cancel ${procId}`);
  }
  async deleteJob(user: string, jobName: string): Promise<void> {
    this.users.add(user);
    this.calls.push(`delete ${jobName}`);
  }
}

class FakeUi implements ReleaseUi {
  messages: string[] = [];
  progress_: string[] = [];
  chooser: (jobs: TpfmJob[], signal: AbortSignal) => Promise<JobChoice> = async (jobs) => ({
    print: jobs,
    delete: [],
  });
  message(kind: 'info' | 'error', text: string): void {
    this.messages.push(`${kind}: ${text}`);
  }
  progress(j: TpfmJob, event: TpfmProgressEvent): void {
    this.progress_.push(
      `${j.fileName} ${event.kind === 'pages' ? `${event.page}/${event.total}` : event.percent}`,
    );
  }
  choose(jobs: TpfmJob[], options: { allowDelete: boolean; signal: AbortSignal }): Promise<JobChoice> {
    return this.chooser(jobs, options.signal);
  }
}

const logLines: string[] = [];
const stations: ReleaseStation[] = [];

/** Records what the station tells copy accounting. */
class FakeCopies implements StationCopies {
  calls: string[] = [];
  async cardPresent(user: string): Promise<void> {
    this.calls.push(`present ${user}`);
  }
  async cardRemoved(): Promise<void> {
    this.calls.push('removed');
  }
  releaseStarted(): void {
    this.calls.push('release started');
  }
  releaseEnded(pages: number): void {
    this.calls.push(`release ended ${pages}`);
  }
  async stop(): Promise<void> {
    this.calls.push('stop');
  }
}

async function setup(
  mode: ReleaseMode,
  client: FakeClient,
  ui = new FakeUi(),
  clock = new ManualClock(),
  copies?: StationCopies,
  parallelReleases?: number,
) {
  const redactor = new Redactor();
  const logger = createLogger({
    level: 'debug',
    redactor,
    destination: { write: (line: string) => void logLines.push(line) },
  });
  const reader = new SocketCardReader('socket://127.0.0.1:0', { logger, clock });
  const station = new ReleaseStation({
    settings: {
      name: 's1',
      printer: 'P1',
      mode,
      transforms: ['hex2dec'],
      idleTimeoutMs: 30_000,
      idleCheckMs: 5,
      ...(parallelReleases === undefined ? {} : { parallelReleases }),
    },
    reader,
    client,
    clock,
    ui,
    logger,
    redactor,
    ...(copies ? { copies } : {}),
  });
  stations.push(station);
  const ended: SessionSummary[] = [];
  const waiters: ((s: SessionSummary) => void)[] = [];
  station.onSessionEnd((summary) => {
    ended.push(summary);
    waiters.shift()?.(summary);
  });
  await station.start();
  const uri = `socket://127.0.0.1:${reader.port}`;
  const nextEnd = () => new Promise<SessionSummary>((resolve) => waiters.push(resolve));
  return { station, uri, ui, clock, nextEnd, ended };
}

afterEach(async () => {
  await Promise.all(stations.splice(0).map((s) => s.stop()));
});

describe('ReleaseStation', () => {
  it('mode all: converts the card, releases every job with progress, never logs the card', async () => {
    const client = new FakeClient({ jobs: [job(1), job(2)], visible: false }, { failJob: 'job2.spl' });
    const { uri, ui, nextEnd } = await setup('all', client);
    const end = nextEnd();
    await sendSwipe(uri, RAW_CARD);
    const summary = await end;
    expect(summary).toEqual({
      reason: 'done',
      printed: ['job1.spl'],
      deleted: [],
      failed: ['job2.spl'],
      cancelled: [],
    });
    expect([...client.users]).toEqual([CARD]);
    expect(client.calls).toEqual(['list P1', 'print job1.spl', 'print job2.spl']);
    expect(ui.progress_).toEqual(['job1.spl 1/2', 'job1.spl 2/2', 'job2.spl 1/2', 'job2.spl 2/2']);
    expect(ui.messages).toContain('error: Doc 2 failed: Job file does not exist');
    const log = logLines.join('');
    expect(log).toContain('release session started');
    expect(log).not.toContain(CARD);
    expect(log).not.toContain(RAW_CARD);
  });

  it('mode choose: deletes and prints what was chosen when X-FMP-Visible allows it', async () => {
    const client = new FakeClient({ jobs: [job(1), job(2), job(3)], visible: true });
    const ui = new FakeUi();
    ui.chooser = async (jobs) => ({ print: [jobs[2]!], delete: [jobs[0]!] });
    const { uri, nextEnd } = await setup('choose', client, ui);
    const end = nextEnd();
    await sendSwipe(uri, RAW_CARD);
    expect(await end).toMatchObject({ reason: 'done', printed: ['job3.spl'], deleted: ['job1.spl'] });
    expect(client.calls).toEqual(['list P1', 'delete job1.spl', 'print job3.spl']);
  });

  it('mode choose: releases all without a selection when X-FMP-Visible is not 1', async () => {
    const client = new FakeClient({ jobs: [job(1), job(2)], visible: false });
    const ui = new FakeUi();
    ui.chooser = async () => {
      throw new Error('selection must not be offered');
    };
    const { uri, nextEnd } = await setup('choose', client, ui);
    const end = nextEnd();
    await sendSwipe(uri, RAW_CARD);
    expect(await end).toMatchObject({ reason: 'done', printed: ['job1.spl', 'job2.spl'], deleted: [] });
    expect(ui.messages[0]).toMatch(/selection is not offered/);
  });

  it('mode while-present: card removal cancels the running print by ProcId', async () => {
    const client = new FakeClient({ jobs: [job(1), job(2)], visible: false }, { hold: true });
    const { uri, ui, nextEnd } = await setup('while-present', client);
    const end = nextEnd();
    await sendSwipe(uri, RAW_CARD);
    await expect.poll(() => ui.progress_).toEqual(['job1.spl 1/2']);
    await sendSwipe(uri, 'remove');
    expect(await end).toMatchObject({ reason: 'removed', printed: [], cancelled: ['job1.spl'] });
    expect(client.calls).toEqual(['list P1', 'print job1.spl', 'cancel 100']);
    expect(client.runs[0]!.aborted).toBe(true);
  });

  it('ends an idle session when the clock passes the idle timeout', async () => {
    const client = new FakeClient({ jobs: [job(1)], visible: true });
    const ui = new FakeUi();
    let chooserSignal: AbortSignal | undefined;
    ui.chooser = (_jobs, signal) => {
      chooserSignal = signal;
      return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    };
    const clock = new ManualClock();
    const { uri, nextEnd } = await setup('choose', client, ui, clock);
    const end = nextEnd();
    await sendSwipe(uri, RAW_CARD);
    await expect.poll(() => chooserSignal).toBeDefined();
    clock.advance(30_000);
    expect(await end).toMatchObject({ reason: 'idle', printed: [] });
    expect(ui.messages).toContain('info: Session ended after inactivity');
    expect(client.calls).toEqual(['list P1']);
  });

  it('refuses while-present with a reader that cannot see removal', async () => {
    const client = new FakeClient({ jobs: [], visible: false });
    const reader = {
      uri: 'keyboard:',
      reportsRemoval: false,
      start: async () => {},
      stop: async () => {},
      onEvent: () => () => {},
    };
    const station = new ReleaseStation({
      settings: { name: 's', printer: 'P', mode: 'while-present', transforms: [], idleTimeoutMs: 1000 },
      reader,
      client,
      clock: new ManualClock(),
      ui: new FakeUi(),
      logger: createLogger({ level: 'silent', destination: { write: () => {} } }),
      redactor: new Redactor(),
    });
    await expect(station.start()).rejects.toThrow(
      'mode: while-present needs a reader that reports card removal',
    );
  });

  it('tells the user when the card cannot be converted or has no jobs', async () => {
    const client = new FakeClient({ jobs: [], visible: false });
    const { uri, ui, nextEnd } = await setup('all', client);
    await sendSwipe(uri, 'not-hex');
    expect(ui.messages).toEqual([
      'error: Card not readable: check the conversion chain (printrelay card probe)',
    ]);
    const end = nextEnd();
    await sendSwipe(uri, RAW_CARD);
    expect(await end).toMatchObject({ reason: 'no-jobs' });
    expect(ui.messages.at(-1)).toBe('info: No jobs waiting');
  });
});

describe('releasing several jobs at once (parallelReleases)', () => {
  it('sends each PrintJob once the one before was answered, keeps at most the window running, and reports in list order', async () => {
    const client = new FakeClient({ jobs: [job(1), job(2), job(3), job(4)], visible: false }, { hold: true });
    const { uri, nextEnd } = await setup('all', client, new FakeUi(), new ManualClock(), undefined, 2);
    const end = nextEnd();
    await sendSwipe(uri, RAW_CARD);
    // Two prints run, neither has ended: the third waits for a free place.
    await expect.poll(() => client.calls).toEqual(['list P1', 'print job1.spl', 'print job2.spl']);
    client.runs[1]!.finish();
    await expect.poll(() => client.calls.at(-1)).toBe('print job3.spl');
    client.runs[2]!.finish();
    await expect.poll(() => client.calls.at(-1)).toBe('print job4.spl');
    client.runs[3]!.finish();
    client.runs[0]!.finish();
    const summary = await end;
    expect(summary).toEqual({
      reason: 'done',
      printed: ['job1.spl', 'job2.spl', 'job3.spl', 'job4.spl'],
      deleted: [],
      failed: [],
      cancelled: [],
    });
    expect(client.calls).toHaveLength(5);
  });

  it('reports in list order although the later jobs ended first', async () => {
    const client = new FakeClient({ jobs: [job(1), job(2), job(3)], visible: false }, { hold: true });
    const { uri } = await setup('all', client, new FakeUi(), new ManualClock(), undefined, 3);
    const report = swipeAndWait(uri, RAW_CARD, 10_000);
    await expect.poll(() => client.runs.length).toBe(3);
    for (const run of [...client.runs].reverse()) run.finish();
    expect(await report).toEqual([
      'released "Doc 1" (job J1): 2 page(s)',
      'released "Doc 2" (job J2): 2 page(s)',
      'released "Doc 3" (job J3): 2 page(s)',
    ]);
  });

  it('while-present releases one at a time whatever the window', async () => {
    const client = new FakeClient({ jobs: [job(1), job(2)], visible: false }, { hold: true });
    const { uri, nextEnd } = await setup(
      'while-present',
      client,
      new FakeUi(),
      new ManualClock(),
      undefined,
      8,
    );
    const end = nextEnd();
    await sendSwipe(uri, RAW_CARD);
    await expect.poll(() => client.calls).toEqual(['list P1', 'print job1.spl']);
    client.runs[0]!.finish();
    await expect.poll(() => client.calls.at(-1)).toBe('print job2.spl');
    client.runs[1]!.finish();
    expect(await end).toMatchObject({ reason: 'done', printed: ['job1.spl', 'job2.spl'] });
  });

  it('a PrintJob that fails outright stops further releases; the running ones end first', async () => {
    const client = new FakeClient(
      { jobs: [job(1), job(2), job(3)], visible: false },
      { hold: true, throwJob: 'job2.spl' },
    );
    const { uri } = await setup('all', client, new FakeUi(), new ManualClock(), undefined, 3);
    const report = swipeAndWait(uri, RAW_CARD, 10_000);
    await expect.poll(() => client.calls).toEqual(['list P1', 'print job1.spl', 'print job2.spl']);
    client.runs[0]!.finish();
    expect(await report).toEqual([
      'released "Doc 1" (job J1): 2 page(s)',
      'error, the rest not released: connection refused',
    ]);
    expect(client.calls).toEqual(['list P1', 'print job1.spl', 'print job2.spl']);
  });

  it('a first PrintJob that fails outright reports that nothing was released', async () => {
    const client = new FakeClient(
      { jobs: [job(1), job(2)], visible: false },
      { hold: true, throwJob: 'job1.spl' },
    );
    const { uri } = await setup('all', client, new FakeUi(), new ManualClock(), undefined, 3);
    expect(await swipeAndWait(uri, RAW_CARD, 10_000)).toEqual([
      'error, nothing released: connection refused',
    ]);
    expect(client.calls).toEqual(['list P1', 'print job1.spl']);
  });

  it('a session ending cancels every running print by its ProcId', async () => {
    const client = new FakeClient({ jobs: [job(1), job(2), job(3)], visible: false }, { hold: true });
    const { station, uri, nextEnd } = await setup(
      'all',
      client,
      new FakeUi(),
      new ManualClock(),
      undefined,
      3,
    );
    const end = nextEnd();
    await sendSwipe(uri, RAW_CARD);
    await expect.poll(() => client.runs.length).toBe(3);
    await station.stop();
    expect(await end).toMatchObject({
      reason: 'stopped',
      cancelled: ['job1.spl', 'job2.spl', 'job3.spl'],
    });
    expect(client.calls.slice(4).sort()).toEqual(['cancel 100', 'cancel 101', 'cancel 102']);
    expect(client.runs.every((run) => run.aborted)).toBe(true);
  });
});

describe('answering the one who swiped (wait <card> on the socket reader)', () => {
  it('reports released jobs with pages and failures, then nothing to release, then an unreadable card', async () => {
    const client = new FakeClient({ jobs: [job(1), job(2)], visible: false }, { failJob: 'job2.spl' });
    const { uri } = await setup('all', client);
    expect(await swipeAndWait(uri, RAW_CARD, 10_000)).toEqual([
      'released "Doc 1" (job J1): 2 page(s)',
      'failed "Doc 2" (job J2): Job file does not exist',
    ]);
    const empty = new FakeClient({ jobs: [], visible: false });
    const second = await setup('all', empty);
    expect(await swipeAndWait(second.uri, RAW_CARD, 10_000)).toEqual([
      'nothing to release: no jobs are waiting for this card',
    ]);
    expect(await swipeAndWait(second.uri, 'not-hex', 10_000)).toEqual([
      'card not readable: check the conversion chain (printrelay card probe); nothing released',
    ]);
  });

  it('a plain swipe still gets only ok, and a waiting sender gets a timeout naming the station', async () => {
    const client = new FakeClient({ jobs: [], visible: false });
    const { uri, nextEnd } = await setup('all', client);
    const end = nextEnd();
    await sendSwipe(uri, RAW_CARD);
    await end;
    const bare = new SocketCardReader('socket://127.0.0.1:0', {
      logger: silentLogger(),
      clock: new ManualClock(),
    });
    await bare.start();
    try {
      await expect(swipeAndWait(`socket://127.0.0.1:${bare.port}`, RAW_CARD, 200)).rejects.toThrow(
        'the card reached the reader, but its station said nothing about it within 0.2 s',
      );
    } finally {
      await bare.stop();
    }
  });
});

describe('copy accounting hooks', () => {
  it('starts copies on the converted card, reports released pages, ends on removal and stops with the station', async () => {
    const copies = new FakeCopies();
    const client = new FakeClient({ jobs: [job(1), job(2)], visible: true });
    const { station, uri, nextEnd } = await setup('all', client, new FakeUi(), new ManualClock(), copies);
    const ended = nextEnd();
    await sendSwipe(uri, RAW_CARD);
    await ended;
    await sendSwipe(uri, 'remove');
    await expect.poll(() => copies.calls.length).toBe(6);
    await station.stop();
    expect(copies.calls).toEqual([
      `present ${CARD}`,
      'release started',
      'release ended 2',
      'release started',
      'release ended 2',
      'removed',
      'stop',
    ]);
  });
});
