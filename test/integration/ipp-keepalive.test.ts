/**
 * The IPP client keeps one connection to its printer open across operations: against a real
 * ippeveprinter behind a counting TCP relay, and against a small HTTP server that closes a
 * kept-open connection when the next request arrives on it (what a printer's idle timeout does
 * when it strikes just as a request goes out).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RetryableError } from '../../src/lib/errors.js';
import { createLogger } from '../../src/log/logger.js';
import { attr } from '../../src/printing/ipp/ipp-attributes.js';
import { IppBackend } from '../../src/printing/ipp/ipp-backend.js';
import { IppClient } from '../../src/printing/ipp/ipp-client.js';
import { decodeMessage, encodeMessage } from '../../src/printing/ipp/ipp-codec.js';
import { TAG } from '../../src/printing/ipp/ipp-constants.js';
import { isFinalJobState } from '../../src/printing/printer-backend.js';
import { type RunningIppEvePrinter, startIppEvePrinter } from '../support/ippeveprinter.js';
import { writePdf } from '../support/pdf.js';
import { peersAvailable } from '../support/peers.js';

const logger = createLogger({ level: 'silent', pretty: false });
const hasPeer = peersAvailable('ippeveprinter');

/** A TCP relay to `port` that counts the connections it was given and how many have ended. */
async function countingRelay(
  port: number,
): Promise<{ uri: (path: string) => string; opened: () => number; closed: () => number; server: Server }> {
  let opened = 0;
  let closed = 0;
  const server = createServer((client: Socket) => {
    opened++;
    const upstream = connect(port, '127.0.0.1');
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => {
      closed++;
      upstream.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const relayPort = typeof address === 'object' && address ? address.port : 0;
  return {
    uri: (path) => `ipp://127.0.0.1:${relayPort}${path}`,
    opened: () => opened,
    closed: () => closed,
    server,
  };
}

describe.runIf(hasPeer)('one kept-open connection per printer (ippeveprinter)', () => {
  let printer: RunningIppEvePrinter;
  let dir: string;
  let pdf: string;

  beforeAll(async () => {
    printer = await startIppEvePrinter({ name: 'Keepalive Printer' });
    dir = mkdtempSync(join(tmpdir(), 'ipp-keepalive-'));
    pdf = await writePdf(join(dir, 'one.pdf'), 1);
  });

  afterAll(async () => {
    await printer?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends every operation of two jobs over one connection and ends it at close()', async () => {
    const relay = await countingRelay(printer.port);
    const backend = new IppBackend(relay.uri(new URL(printer.uri).pathname), { logger });
    const sent: string[] = [];
    expect((await backend.describe()).name).toBe('Keepalive Printer');
    for (const name of ['first', 'second']) {
      const job = await backend.submit({
        documentPath: pdf,
        documentFormat: 'application/pdf',
        jobName: name,
        userName: 'u',
        ticket: { copies: 1 },
        onDocumentSent: () => sent.push(name),
      });
      // The printer's answer to Send-Document names the job's state (the watch's first poll waits on it).
      expect(['pending', 'processing', 'completed']).toContain(job.state);
      let state = await backend.jobState(job.printerJobId);
      while (!isFinalJobState(state.state)) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        state = await backend.jobState(job.printerJobId);
      }
      expect(state.state).toBe('completed');
      await backend.cancel(job.printerJobId);
    }
    expect((await backend.findJobByName('second'))?.printerJobId).toMatch(/^\d+$/);
    expect(sent).toEqual(['first', 'second']);
    expect(relay.opened()).toBe(1);
    expect(relay.closed()).toBe(0);
    await backend.close();
    for (let i = 0; i < 100 && relay.closed() === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(relay.closed()).toBe(1);
    relay.server.close();
  });

  it('sends a document held in memory without reading its file', async () => {
    const backend = new IppBackend(printer.uri, { logger });
    const bytes = readFileSync(pdf);
    const flushed: string[] = [];
    for (const name of ['memory-create-job', 'memory-again']) {
      const job = await backend.submit({
        // No file there: the bytes are what goes to the printer.
        documentPath: join(dir, 'not-there.pdf'),
        documentBytes: bytes,
        documentFormat: 'application/pdf',
        jobName: name,
        userName: 'u',
        ticket: { copies: 1 },
        onDocumentFlushed: () => flushed.push(name),
      });
      let state = await backend.jobState(job.printerJobId);
      while (!isFinalJobState(state.state)) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        state = await backend.jobState(job.printerJobId);
      }
      expect(state.state).toBe('completed');
    }
    expect(flushed).toEqual(['memory-create-job', 'memory-again']);
    await backend.close();
  });
});

describe('a kept-open connection the printer closed', () => {
  const servers: HttpServer[] = [];
  afterAll(() => {
    for (const s of servers) s.close();
  });

  /**
   * An IPP server that answers the first request on each connection (successful-ok, the
   * printer's name, keep-alive) and closes the connection, without a byte of answer, when a
   * second request arrives on it. Records each request's operation id.
   */
  async function closesReusedConnections() {
    const operations: number[] = [];
    let connections = 0;
    const served = new WeakSet<object>();
    const server = createHttpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const request = decodeMessage(Buffer.concat(chunks));
        operations.push(request.code);
        if (served.has(req.socket)) {
          req.socket.destroy();
          return;
        }
        served.add(req.socket);
        const body = encodeMessage({
          version: { major: 2, minor: 0 },
          code: 0,
          requestId: request.requestId,
          groups: [
            {
              tag: TAG.OPERATION,
              attributes: [
                attr(TAG.CHARSET, 'attributes-charset', 'utf-8'),
                attr(TAG.NATURAL_LANGUAGE, 'attributes-natural-language', 'en'),
              ],
            },
            { tag: TAG.PRINTER, attributes: [attr(TAG.NAME, 'printer-name', 'Closing Printer')] },
          ],
        });
        res.writeHead(200, { 'content-type': 'application/ipp', 'content-length': body.length });
        res.end(body);
      });
    });
    server.on('connection', () => connections++);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    return { uri: `ipp://127.0.0.1:${port}/ipp/print`, operations, connections: () => connections };
  }

  it('sends a Get-Printer-Attributes again on a new connection', async () => {
    const server = await closesReusedConnections();
    const client = new IppClient({ uri: server.uri, logger });
    expect((await client.getPrinterAttributes(['printer-name']))['printer-name']).toBe('Closing Printer');
    expect((await client.getPrinterAttributes(['printer-name']))['printer-name']).toBe('Closing Printer');
    // first connection: one answer, then closed on the second request; that request went out again
    expect(server.operations).toEqual([0x000b, 0x000b, 0x000b]);
    expect(server.connections()).toBe(2);
    client.close();
  });

  it('does not send a Create-Job twice: the caller gets printer_unreachable and reconciles', async () => {
    const server = await closesReusedConnections();
    const client = new IppClient({ uri: server.uri, logger });
    await client.getPrinterAttributes(['printer-name']);
    const created = client.createJob({
      documentFormat: 'application/pdf',
      jobName: 'once',
      jobAttributes: [],
    });
    await expect(created).rejects.toSatisfy(
      (e) => e instanceof RetryableError && e.code === 'printer_unreachable',
    );
    expect(server.operations).toEqual([0x000b, 0x0005]);
    expect(server.connections()).toBe(1);
    client.close();
  });
});
