/**
 * The IPP transport's HTTP over real sockets, against small servers that answer the way printers
 * and CUPS may: chunked answers on a kept-open connection, `Connection: close`, an answer over the
 * size limit, and a printer that stops in the middle of its answer (timeout, the caller's abort).
 * ippeveprinter and CUPS themselves are in ipp-client, ipp-keepalive and cups-job-states tests.
 */
import { createServer as createHttpServer, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { RetryableError } from '../../src/lib/errors.js';
import { createLogger } from '../../src/log/logger.js';
import { attr } from '../../src/printing/ipp/ipp-attributes.js';
import { IppClient } from '../../src/printing/ipp/ipp-client.js';
import { decodeMessage, encodeMessage } from '../../src/printing/ipp/ipp-codec.js';
import { TAG } from '../../src/printing/ipp/ipp-constants.js';
import { IppResponseError } from '../../src/printing/ipp/ipp-errors.js';

const logger = createLogger({ level: 'silent', pretty: false });
const servers: (Server | HttpServer)[] = [];
afterAll(() => {
  for (const server of servers) server.close();
});

/** A successful-ok answer to request `requestId`: the printer's name, and a job whose id is the request's. */
function answer(requestId: number, name = 'Transport Printer'): Buffer {
  return encodeMessage({
    version: { major: 2, minor: 0 },
    code: 0,
    requestId,
    groups: [
      {
        tag: TAG.OPERATION,
        attributes: [
          attr(TAG.CHARSET, 'attributes-charset', 'utf-8'),
          attr(TAG.NATURAL_LANGUAGE, 'attributes-natural-language', 'en'),
        ],
      },
      { tag: TAG.PRINTER, attributes: [attr(TAG.NAME, 'printer-name', name)] },
      { tag: TAG.JOB, attributes: [attr(TAG.INTEGER, 'job-id', requestId)] },
    ],
  });
}

async function listen(server: Server | HttpServer): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return `ipp://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/ipp/print`;
}

/** An HTTP server that answers every IPP request with `respond`; counts connections and requests. */
async function ippServer(respond: (res: ServerResponse, requestId: number, body: Buffer) => void) {
  const seen = { connections: 0, requests: 0, bodies: [] as Buffer[] };
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.requests++;
      const body = Buffer.concat(chunks);
      seen.bodies.push(body);
      respond(res, decodeMessage(body).requestId, body);
    });
  });
  server.on('connection', () => seen.connections++);
  return { uri: await listen(server), seen };
}

/** A TCP server that reads a request and answers with a head and the first bytes of a body, then nothing more. */
async function stallsMidAnswer(): Promise<{ uri: string; answered: Promise<void> }> {
  let answeredNow: () => void = () => undefined;
  const answered = new Promise<void>((resolve) => {
    answeredNow = resolve;
  });
  const server = createServer((socket: Socket) => {
    socket.once('data', () => {
      const body = answer(1);
      socket.write(
        Buffer.concat([
          Buffer.from(
            `HTTP/1.1 200 OK\r\nContent-Type: application/ipp\r\nContent-Length: ${body.length}\r\n\r\n`,
          ),
          body.subarray(0, 10),
        ]),
        () => answeredNow(),
      );
    });
    socket.on('error', () => undefined);
  });
  return { uri: await listen(server), answered };
}

describe('the IPP transport over real sockets', () => {
  it('reads chunked answers, several on one kept-open connection', async () => {
    const server = await ippServer((res, requestId) => {
      // No Content-Length: node's server sends the body chunked, here in three chunks.
      const body = answer(requestId, `Chunked ${requestId}`);
      res.writeHead(200, { 'content-type': 'application/ipp' });
      res.write(body.subarray(0, 3));
      res.write(body.subarray(3, 20));
      res.end(body.subarray(20));
    });
    const client = new IppClient({ uri: server.uri, logger });
    for (let i = 1; i <= 3; i++) {
      expect((await client.getPrinterAttributes(['printer-name']))['printer-name']).toBe(`Chunked ${i}`);
    }
    expect(server.seen).toMatchObject({ connections: 1, requests: 3 });
    client.close();
  });

  it('opens a new connection after an answer that says Connection: close, even for Create-Job', async () => {
    const server = await ippServer((res, requestId) => {
      const body = answer(requestId);
      res.writeHead(200, {
        'content-type': 'application/ipp',
        'content-length': body.length,
        connection: 'close',
      });
      res.end(body);
    });
    const client = new IppClient({ uri: server.uri, logger });
    await client.getPrinterAttributes(['printer-name']);
    // Not a stale connection: the client knew this one would close and did not keep it.
    await client.createJob({ documentFormat: 'application/pdf', jobName: 'after-close', jobAttributes: [] });
    expect(server.seen).toMatchObject({ connections: 2, requests: 2 });
    client.close();
  });

  it('refuses an answer over 8 MiB as printer_bad_response', async () => {
    const server = await ippServer((res, requestId) => {
      res.writeHead(200, { 'content-type': 'application/ipp' });
      res.write(answer(requestId));
      res.end(Buffer.alloc(8 * 1024 * 1024));
    });
    const client = new IppClient({ uri: server.uri, logger });
    const asked = client.getPrinterAttributes(['printer-name']);
    await expect(asked).rejects.toBeInstanceOf(IppResponseError);
    await expect(asked).rejects.toMatchObject({ code: 'printer_bad_response' });
    await expect(asked).rejects.toThrow(/response larger than 8 MiB/);
    client.close();
  });

  it('times out a printer that stops in the middle of its answer', async () => {
    const server = await stallsMidAnswer();
    const client = new IppClient({ uri: server.uri, logger, timeoutMs: 300 });
    const asked = client.getPrinterAttributes(['printer-name']);
    await server.answered;
    await expect(asked).rejects.toSatisfy(
      (e) => e instanceof RetryableError && e.code === 'printer_unreachable' && /timed out/.test(e.message),
    );
    client.close();
  });

  it("ends an exchange in the middle of the answer with the caller's abort reason", async () => {
    const server = await stallsMidAnswer();
    const client = new IppClient({ uri: server.uri, logger });
    const controller = new AbortController();
    const asked = client.getPrinterAttributes(['printer-name'], controller.signal);
    await server.answered;
    const reason = new Error('agent stopping');
    controller.abort(reason);
    await expect(asked).rejects.toBe(reason);
    client.close();
  });

  it('gives a document sent from memory the document timeout, not the attribute one', async () => {
    // The printer reads the request and never answers: only the document timeout (short here)
    // ends the Print-Job; the attribute timeout is far longer than the test may run.
    const server = await stallsMidAnswer();
    const client = new IppClient({ uri: server.uri, logger, timeoutMs: 600_000, documentTimeoutMs: 200 });
    const printed = client.printJob({
      documentPath: '',
      documentBytes: Buffer.from('%PDF-1.4 small'),
      documentFormat: 'application/pdf',
      jobName: 'memory-timeout',
      jobAttributes: [],
    });
    await expect(printed).rejects.toSatisfy(
      (e) => e instanceof RetryableError && e.code === 'printer_unreachable' && /timed out/.test(e.message),
    );
    client.close();
  });
});
