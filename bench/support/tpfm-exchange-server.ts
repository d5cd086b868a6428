/**
 * The server side of bench:tpfm-exchange: a bare node HTTP server that answers every request as
 * the emulator answers a PrintJob that printed one page, with nothing behind it: the headers
 * flushed at once (X-FMP-ProcId, X-FMP-ProgressType, Trailer), on the next turn one progress
 * chunk, then the in-band result line, the last chunk and the trailer. Prints `listening <port>`;
 * runs until SIGTERM.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TPFM_HEADERS } from '../../src/protocol/tpfm-codes.js';
import { formatProgressChunk, formatResultLine } from '../../src/protocol/tpfm-progress.js';

let procId = 0;
const server = createServer((_req, res) => {
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
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  console.log(`listening ${(server.address() as AddressInfo).port}`);
});
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
