import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TpfmAuthError, TpfmClient, TpfmCommandError } from '../../src/client/tpfm-client.js';
import { silentLogger } from '../../src/log/logger.js';
import {
  formatCapabilitiesBody,
  formatJobListBody,
  formatVersionBody,
} from '../../src/protocol/tpfm-bodies.js';
import { encodeErrText } from '../../src/protocol/tpfm-codes.js';
import { formatProgressChunk, formatResultLine } from '../../src/protocol/tpfm-progress.js';
import { peersAvailable } from '../support/peers.js';

const run = promisify(execFile);
const PASSWORD = 'pull-secret';
const CARD = '04A1B2C3D4';
const job = {
  fileName: 'a.spl',
  size: 10,
  created: 1,
  modified: 2,
  attributes: 0,
  jobId: 'J1',
  displayName: 'Report',
  driverName: 'Drv',
};

interface Seen {
  cmd: string | null;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
}
const seen: Seen[] = [];

function authorized(req: IncomingMessage): boolean {
  const expected = `Basic ${Buffer.from(`${CARD}:${PASSWORD}`).toString('base64')}`;
  return req.headers.authorization === expected;
}

function printJob(query: URLSearchParams, res: ServerResponse): void {
  const jobName = query.get('Job');
  if (jobName === 'missing.spl') {
    res.writeHead(200, {
      'X-FMP-Return': '5',
      'X-FMP-ErrText': encodeErrText('Auftragsdatei existiert nicht'),
    });
    res.end();
    return;
  }
  const withTrailer = jobName !== 'no-trailer.spl';
  const headers: Record<string, string> = {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-FMP-ProcId': '77',
    'X-FMP-ProgressType': 'Pages',
  };
  if (withTrailer) headers.Trailer = 'X-FMP-Return, X-FMP-ErrText';
  res.writeHead(200, headers);
  for (let page = 1; page <= 3; page++) res.write(formatProgressChunk({ kind: 'pages', page, total: 3 }));
  const code = jobName === 'fails.spl' ? 1 : 0;
  res.write(formatResultLine(code));
  if (withTrailer)
    res.addTrailers({ 'X-FMP-Return': String(code), 'X-FMP-ErrText': encodeErrText(code ? 'Disk' : '') });
  res.end();
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://x');
  const cmd = url.searchParams.get('Cmd');
  seen.push({ cmd, path: url.pathname, query: url.searchParams, headers: req.headers });
  if (cmd === 'GetVersion') return void res.end(formatVersionBody({ 'tpfm.dll': '4.1.0' }));
  if (cmd === 'GetCapabilities') {
    return void res.end(
      formatCapabilitiesBody({ commands: ['GetVersion', 'PrintJob'], systemType: 'Cloud' }),
    );
  }
  if (!authorized(req)) {
    res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="TPFM"' });
    return void res.end();
  }
  if (cmd === 'GetJobList') {
    res.writeHead(200, url.searchParams.get('Printer') === 'visible' ? { 'X-FMP-Visible': '1' } : {});
    return void res.end(formatJobListBody([job]));
  }
  if (cmd === 'PrintJob') return void printJob(url.searchParams, res);
  if (cmd === 'CreateLocalJob') {
    res.writeHead(200, { 'X-FMP-JobId': 'LJ-1' });
    return void res.end();
  }
  if (cmd === 'UpdateLocalJob') {
    res.writeHead(200, {
      'X-FMP-Return': '13',
      'X-FMP-ErrText': encodeErrText('Unknown or closed local job'),
    });
    return void res.end();
  }
  res.end();
}

let server: Server;
let baseUrl: string;
let client: TpfmClient;

beforeAll(async () => {
  server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = new TpfmClient({
    baseUrl,
    password: PASSWORD,
    userAgent: 'PrintRelay test',
    lang: 'de',
    logger: silentLogger(),
  });
});

afterAll(async () => {
  await client.close();
  await new Promise((resolve) => server.close(resolve));
});

describe('TpfmClient against a real chunked HTTP server', () => {
  it('sends the required headers and reads GetVersion and GetCapabilities without auth', async () => {
    expect(await client.getVersion()).toEqual({ 'tpfm.dll': '4.1.0' });
    const last = seen.at(-1)!;
    expect(last.headers['x-lang-id']).toBe('de');
    expect(last.headers['x-fmp-user-agent']).toBe('PrintRelay test');
    expect(last.headers.authorization).toBeUndefined();
    expect(await client.getCapabilities()).toEqual({
      commands: ['GetVersion', 'PrintJob'],
      systemType: 'Cloud',
    });
  });

  it('obeys X-FMP-Visible', async () => {
    expect(await client.getJobList(CARD, { printer: 'visible', showPutOnHoldJobs: true })).toEqual({
      jobs: [job],
      visible: true,
    });
    expect(seen.at(-1)!.query.get('ShowPutOnHoldJobs')).toBe('1');
    expect((await client.getJobList(CARD, { printer: 'other' })).visible).toBe(false);
  });

  it("sends each user's own credential when the user changes between commands", async () => {
    const basic = (user: string) => `Basic ${Buffer.from(`${user}:${PASSWORD}`).toString('base64')}`;
    await client.getJobList(CARD);
    expect(seen.at(-1)!.headers.authorization).toBe(basic(CARD));
    await expect(client.getJobList('0000000001')).rejects.toBeInstanceOf(TpfmAuthError);
    expect(seen.at(-1)!.headers.authorization).toBe(basic('0000000001'));
    await client.getJobList(CARD);
    expect(seen.at(-1)!.headers.authorization).toBe(basic(CARD));
  });

  it('sends every query parameter, reserved and non-ASCII characters included, and only the /TPFM/ path', async () => {
    const name = 'Q3 report & notes=draft?/ü 100%.spl';
    await (await client.printJob(CARD, { job: name, printer: 'Floor 2 #1', copies: 3 })).result();
    const last = seen.at(-1)!;
    expect(last.cmd).toBe('PrintJob');
    expect(Object.fromEntries(last.query)).toEqual({
      Cmd: 'PrintJob',
      Job: name,
      Printer: 'Floor 2 #1',
      Copies: '3',
    });
    expect(last.path).toBe('/TPFM/');
  });

  it('turns 401 into TpfmAuthError', async () => {
    const stranger = new TpfmClient({ baseUrl, password: 'wrong', userAgent: 'x', logger: silentLogger() });
    await expect(stranger.getJobList(CARD)).rejects.toBeInstanceOf(TpfmAuthError);
    await stranger.close();
  });

  it('reads progress and the trailer result', async () => {
    const printRun = await client.printJob(CARD, { job: 'a.spl', copies: 2, delete: false });
    expect(printRun.procId).toBe(77);
    expect(printRun.progressType).toBe('Pages');
    const events = [];
    for await (const event of printRun) events.push(event);
    expect(events).toEqual([1, 2, 3].map((page) => ({ kind: 'pages', page, total: 3 })));
    expect(await printRun.result()).toEqual({ code: 0, errText: '', source: 'trailer' });
    expect(seen.at(-1)!.query.get('Delete')).toBe('0');
  });

  it('decodes an error result from the trailer', async () => {
    const printRun = await client.printJob(CARD, { job: 'fails.spl' });
    expect(await printRun.result()).toEqual({ code: 1, errText: 'Disk', source: 'trailer' });
  });

  it('falls back to the in-band result line when the trailer is missing', async () => {
    const printRun = await client.printJob(CARD, { job: 'no-trailer.spl' });
    expect(await printRun.result()).toEqual({ code: 0, source: 'body' });
  });

  it('reports a job that failed to start from the headers', async () => {
    const printRun = await client.printJob(CARD, { job: 'missing.spl' });
    expect(printRun.procId).toBeUndefined();
    expect(await printRun.result()).toMatchObject({
      code: 5,
      errText: 'Auftragsdatei existiert nicht',
      source: 'header',
    });
  });

  it('creates local jobs and raises TpfmCommandError with the decoded text', async () => {
    expect(await client.createLocalJob(CARD, { Printer: 'p1', Type: 'Copy', Copies: 2 })).toBe('LJ-1');
    expect(seen.at(-1)!.query.get('Type')).toBe('Copy');
    const failure = client.updateLocalJob(CARD, { JobId: 'LJ-0', Status: 'Succeeded' });
    await expect(failure).rejects.toBeInstanceOf(TpfmCommandError);
    await expect(failure).rejects.toMatchObject({ returnCode: 13, errText: 'Unknown or closed local job' });
  });

  it('sends CancelPrintJob with the ProcId', async () => {
    await client.cancelPrintJob(CARD, 77);
    expect(seen.at(-1)!.query.get('Cmd')).toBe('CancelPrintJob');
    expect(seen.at(-1)!.query.get('ProcId')).toBe('77');
  });

  it.runIf(peersAvailable('curl'))(
    'puts true chunked coding and a trailer on the wire (curl --raw)',
    async () => {
      const { stdout } = await run('curl', [
        '--raw',
        '-s',
        '-i',
        '-u',
        `${CARD}:${PASSWORD}`,
        '-H',
        'X-Lang-ID: en',
        '-H',
        'X-FMP-User-Agent: curl',
        `${baseUrl}/TPFM/?Cmd=PrintJob&Job=a.spl`,
      ]);
      expect(stdout).toMatch(/transfer-encoding: chunked/i);
      // Each chunk's size counts its trailing CRLF: "1/3\r\n" is 5 bytes.
      expect(stdout).toContain('5\r\n1/3\r\n\r\n');
      // 17 bytes, hex 11.
      expect(stdout).toContain('11\r\nX-FMP-Return: 0\r\n\r\n');
      expect(stdout).toMatch(/0\r\nX-FMP-Return: 0\r\n/);
    },
  );
});
