/**
 * A PrintJob exchange in bare node, for the floors of the release benches: a node HTTP server
 * that answers every request as the emulator answers a PrintJob that printed one page, with
 * nothing behind it (the headers flushed at once, on the next turn one progress chunk, then the
 * in-band result line, the last chunk and the trailer), and a bare node client on a keep-alive
 * agent that reads such an answer to its trailer. The caller closes what it started.
 */
import { Agent as HttpAgent, createServer, request as httpRequest, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TPFM_HEADERS } from '../../src/protocol/tpfm-codes.js';
import { formatProgressChunk, formatResultLine } from '../../src/protocol/tpfm-progress.js';

/** The query of the exchanges (what a station sends for one job). */
export const PRINT_JOB_QUERY = '/TPFM/?Cmd=PrintJob&Job=job-1.spl&Printer=Bench&Progress=1';

let procId = 0;

/** Answers `res` as the emulator answers a one-page PrintJob (see the file comment). */
export function answerOnePagePrintJob(res: ServerResponse): void {
  res.statusCode = 200;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('Transfer-Encoding', 'chunked');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader(TPFM_HEADERS.procId, String(++procId));
  res.setHeader(TPFM_HEADERS.progressType, 'Pages');
  res.setHeader('Trailer', TPFM_HEADERS.return);
  res.flushHeaders();
  setImmediate(() => {
    res.write(formatProgressChunk({ kind: 'pages', page: 1, total: 1 }));
    setImmediate(() => {
      res.write(formatResultLine(0));
      res.addTrailers({ [TPFM_HEADERS.return]: '0' });
      res.end();
    });
  });
}

/** Starts the bare server on 127.0.0.1; resolves with its port and its close. */
export async function startBarePrintJobServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const server = createServer((_req, res) => answerOnePagePrintJob(res));
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A bare node client of the server on `port`: one exchange per call, read to its trailer. */
export function barePrintJobClient(port: number, authorization: string) {
  const agent = new HttpAgent({ keepAlive: true });
  const options = { host: '127.0.0.1', port, path: PRINT_JOB_QUERY, agent, headers: { authorization } };
  return {
    exchange: (): Promise<void> =>
      new Promise((resolve, reject) => {
        httpRequest(options, (res) => {
          res.on('data', () => {});
          res.on('end', () =>
            res.trailers['x-fmp-return'] === '0' ? resolve() : reject(new Error('PrintJob: no trailer')),
          );
        })
          .on('error', reject)
          .end();
      }),
    close: () => agent.destroy(),
  };
}

/** Runs `count` calls of `run`, `window` at once; resolves with the CPU microseconds of this process. */
export async function cpuOf(run: () => Promise<void>, count: number, window: number): Promise<number> {
  const before = process.cpuUsage();
  let started = 0;
  const lane = async () => {
    while (started < count) {
      started++;
      await run();
    }
  };
  await Promise.all(Array.from({ length: window }, lane));
  const used = process.cpuUsage(before);
  return used.user + used.system;
}
