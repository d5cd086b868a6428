/**
 * Real HTTPS peers for webhook tests and benchmarks: a private CA and a server certificate for
 * 127.0.0.1 made with the openssl command line, and node:https receivers whose answer to each
 * request is chosen by a behaviour (answer a status, stall without answering, close the
 * connection). Each receiver records the requests it got. The caller closes receivers and
 * removes the certificate directory.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** PEM texts of a private CA and of a server certificate (127.0.0.1, localhost) it signed. */
export interface TestCertificates {
  caPem: string;
  keyPem: string;
  certPem: string;
  dir: string;
  remove(): Promise<void>;
}

/** Makes a CA and a server certificate with openssl (EC P-256, valid two days). */
export async function makeTestCertificates(): Promise<TestCertificates> {
  const dir = await mkdtemp(join(tmpdir(), 'webhook-ca-'));
  const p = (name: string) => join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await run('openssl', [
    'req',
    '-x509',
    ...ec,
    '-keyout',
    p('ca.key'),
    '-out',
    p('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=PrintRelay Test CA',
  ]);
  await run('openssl', [
    'req',
    ...ec,
    '-keyout',
    p('server.key'),
    '-out',
    p('server.csr'),
    '-subj',
    '/CN=127.0.0.1',
  ]);
  await writeFile(p('ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  await run('openssl', [
    'x509',
    '-req',
    '-in',
    p('server.csr'),
    '-CA',
    p('ca.pem'),
    '-CAkey',
    p('ca.key'),
    '-CAcreateserial',
    '-out',
    p('server.pem'),
    '-days',
    '2',
    '-extfile',
    p('ext.cnf'),
  ]);
  return {
    caPem: await readFile(p('ca.pem'), 'utf8'),
    keyPem: await readFile(p('server.key'), 'utf8'),
    certPem: await readFile(p('server.pem'), 'utf8'),
    dir,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** What a receiver does with request number `n` (0-based). */
export type Behaviour = (n: number) => { status: number; delayMs?: number } | 'stall' | 'close';

/** A request as received. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A running receiver. */
export interface HttpsReceiver {
  /** https://127.0.0.1:<port>/hook */
  url: string;
  requests: ReceivedRequest[];
  /** Resolves when `count` requests have arrived. */
  waitFor(count: number): Promise<void>;
  close(): Promise<void>;
}

/** Answers every request with `status`. */
export const answer =
  (status: number): Behaviour =>
  () => ({ status });

/** Starts an HTTPS receiver on 127.0.0.1 with the given certificate and behaviour. */
export async function startHttpsReceiver(
  certs: TestCertificates,
  behaviour: Behaviour,
): Promise<HttpsReceiver> {
  const requests: ReceivedRequest[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const stalled = new Set<ServerResponse>();
  const server: Server = createServer({ key: certs.keyPem, cert: certs.certPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const n = requests.length;
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      for (const w of waiters.filter((x) => requests.length >= x.count)) w.resolve();
      respond(behaviour(n), req, res, stalled);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `https://127.0.0.1:${port}/hook`,
    requests,
    waitFor: (count) =>
      requests.length >= count
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ count, resolve })),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function respond(
  action: ReturnType<Behaviour>,
  req: IncomingMessage,
  res: ServerResponse,
  stalled: Set<ServerResponse>,
): void {
  if (action === 'close') {
    req.socket.destroy();
    return;
  }
  if (action === 'stall') {
    stalled.add(res);
    return;
  }
  const send = () =>
    res.writeHead(action.status, { 'content-type': 'text/plain' }).end(`answer ${action.status}`);
  if (action.delayMs) setTimeout(send, action.delayMs);
  else send();
}
