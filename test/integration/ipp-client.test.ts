/**
 * IppBackend / IppClient against a real IPP Everywhere printer (ippeveprinter from CUPS), and
 * the failure mapping against a closed port and tiny misbehaving TCP servers.
 */
import { once } from 'node:events';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PermanentError, RetryableError } from '../../src/lib/errors.js';
import { createLogger } from '../../src/log/logger.js';
import { IppBackend } from '../../src/printing/ipp/ipp-backend.js';
import { IppClient } from '../../src/printing/ipp/ipp-client.js';
import { IppResponseError } from '../../src/printing/ipp/ipp-errors.js';
import {
  type BackendJobState,
  isFinalJobState,
  type PrinterBackend,
} from '../../src/printing/printer-backend.js';
import { type RunningIppEvePrinter, startIppEvePrinter } from '../support/ippeveprinter.js';
import { freePort, peersAvailable } from '../support/peers.js';

const logger = createLogger({ level: 'silent', pretty: false });
const hasPeer = peersAvailable('ippeveprinter');
let dir: string;
let pdf: string;
let text: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ipp-client-'));
  pdf = join(dir, 'two.pdf');
  text = join(dir, 'note.txt');
  const doc = await PDFDocument.create();
  doc.addPage().drawText('one', { x: 50, y: 700 });
  doc.addPage().drawText('two', { x: 50, y: 700 });
  writeFileSync(pdf, await doc.save());
  writeFileSync(text, 'Hello from PrintRelay\n');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function waitFinal(backend: PrinterBackend, id: string): Promise<BackendJobState> {
  for (;;) {
    const state = await backend.jobState(id);
    if (isFinalJobState(state.state)) return state;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.runIf(hasPeer)('IppBackend against ippeveprinter', () => {
  const uri = () => inject('ippeveprinterUri');

  it('describes the printer with its raw attributes', async () => {
    const backend = new IppBackend(uri(), { logger });
    const d = await backend.describe();
    expect(d.name).toBe('Shared Test Printer');
    expect(d.documentFormats).toContain('application/pdf');
    expect(d.uuid).toMatch(/^urn:uuid:/);
    expect(['idle', 'processing']).toContain(d.state);
    expect(d.attributes['media-col-database']).toBeInstanceOf(Array);
    expect(d.attributes['printer-resolution-supported']).toBeDefined();
    await backend.close();
  });

  it('prints a PDF and a text file and watches them complete', async () => {
    const backend = new IppBackend(uri(), { logger });
    for (const [path, format] of [
      [pdf, 'application/pdf'],
      [text, 'text/plain'],
    ] as const) {
      const ticket = { copies: 1, duplex: 'long-edge' as const, paper: { id: 9 } };
      let submitted: { printerJobId: string } | undefined;
      while (!submitted) {
        try {
          submitted = await backend.submit({
            documentPath: path,
            documentFormat: format,
            jobName: `t-${format}`,
            userName: 'u',
            ticket,
          });
        } catch (error) {
          // The shared printer takes one job at a time; another test file may be printing.
          if (!(error instanceof RetryableError && error.code === 'printer_busy')) throw error;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      const final = await waitFinal(backend, submitted.printerJobId);
      expect(final.state).toBe('completed');
    }
    const found = await backend.ipp.findJobByName('t-text/plain');
    expect(found?.['job-state']).toBe(9);
    await backend.close();
  });

  it('sends a document of several read buffers byte for byte (two buffers reused in turn)', async () => {
    const printer = await startIppEvePrinter({ name: 'Buffers Printer' });
    try {
      const big = join(dir, 'buffers.pdf');
      const body = Buffer.alloc(5 * 512 * 1024 + 7);
      for (let i = 0; i < body.length; i++) body[i] = (i * 31 + (i >> 16)) & 0xff;
      Buffer.from('%PDF-1.4\n').copy(body);
      writeFileSync(big, body);
      const client = new IppClient({ uri: printer.uri, logger });
      try {
        const created = await client.printJob({
          documentPath: big,
          documentFormat: 'application/pdf',
          jobName: 'buffers',
          jobAttributes: [],
        });
        const kept = join(printer.spoolDir, `${created.jobId}-buffers.pdf`);
        await expect
          .poll(() => existsSync(kept) && statSync(kept).size, { timeout: 10_000 })
          .toBe(body.length);
        expect(readFileSync(kept).equals(body)).toBe(true);
      } finally {
        client.close();
      }
    } finally {
      await printer.stop();
    }
  });

  it('validates a job and reports format-not-supported as permanent', async () => {
    const client = new IppClient({ uri: uri(), logger });
    await expect(
      client.validateJob({ documentFormat: 'application/pdf', jobName: 'v', jobAttributes: [] }),
    ).resolves.toBeDefined();
    await expect(
      client.printJob({
        documentPath: text,
        documentFormat: 'application/x-nope',
        jobName: 'bad',
        jobAttributes: [],
      }),
    ).rejects.toSatisfy(
      (e) => e instanceof PermanentError && (e as PermanentError).code === 'printer_rejected',
    );
  });

  it('works over ipps:// with the self-signed certificate, and refuses it with tls-verify=true', async () => {
    const secure = uri().replace(/^ipp:/, 'ipps:');
    const backend = new IppBackend(secure, { logger });
    expect((await backend.describe()).name).toBe('Shared Test Printer');
    const strict = new IppBackend(`${secure}?tls-verify=true`, { logger });
    await expect(strict.describe()).rejects.toMatchObject({ code: 'printer_tls_untrusted' });
    const pinned = new IppBackend(`${secure}?tls-fingerprint=${'00:'.repeat(31)}00`, { logger });
    await expect(pinned.describe()).rejects.toMatchObject({ code: 'printer_tls_untrusted' });
  });

  it("prints over ipps:// pinned to the printer certificate's own fingerprint", async () => {
    const secure = new URL(uri().replace(/^ipp:/, 'ipps:'));
    const socket = tlsConnect({
      host: secure.hostname,
      port: Number(secure.port),
      rejectUnauthorized: false,
    });
    await once(socket, 'secureConnect');
    const fingerprint = socket.getPeerCertificate().fingerprint256;
    socket.destroy();
    const backend = new IppBackend(`${secure.href}?tls-fingerprint=${fingerprint}`, { logger });
    const job = await backend.submit({
      documentPath: pdf,
      documentFormat: 'application/pdf',
      jobName: 'pinned',
      userName: 'u',
      ticket: { copies: 1 },
    });
    expect((await waitFinal(backend, job.printerJobId)).state).toBe('completed');
    await backend.close();
  });
});

describe.runIf(hasPeer)('a busy ippeveprinter', () => {
  let slow: RunningIppEvePrinter;
  beforeAll(async () => {
    const script = join(dir, 'slow-print.sh');
    writeFileSync(script, '#!/bin/sh\nsleep 3\n');
    chmodSync(script, 0o755);
    slow = await startIppEvePrinter({ name: 'Slow Printer', command: script });
  });
  afterAll(async () => slow?.stop());

  it('answers a second job with server-error-busy, mapped to RetryableError printer_busy', async () => {
    const backend = new IppBackend(slow.uri, { logger });
    const job = {
      documentPath: pdf,
      documentFormat: 'application/pdf',
      userName: 'u',
      ticket: { copies: 1 },
    };
    const first = await backend.submit({ ...job, jobName: 'first' });
    await expect(backend.submit({ ...job, jobName: 'second' })).rejects.toSatisfy(
      (e) => e instanceof RetryableError && e.code === 'printer_busy',
    );
    await backend.cancel(first.printerJobId);
    await backend.cancel(first.printerJobId);
    await backend.close();
  });
});

describe('IPP failures become typed errors', () => {
  const servers: Server[] = [];
  afterAll(() => {
    for (const s of servers) s.close();
  });

  function serve(reply: (socket: import('node:net').Socket) => void): Promise<string> {
    return new Promise((resolve) => {
      const server = createServer((socket) => {
        socket.once('data', () => reply(socket));
        socket.on('error', () => undefined);
      });
      servers.push(server);
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        resolve(`ipp://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/ipp/print`);
      });
    });
  }

  it('maps a refused connection to printer_unreachable', async () => {
    const client = new IppClient({ uri: `ipp://127.0.0.1:${await freePort()}/ipp/print`, logger });
    await expect(client.getPrinterAttributes()).rejects.toSatisfy(
      (e) => e instanceof RetryableError && e.code === 'printer_unreachable',
    );
  });

  it('maps a truncated response to IppResponseError', async () => {
    const uri = await serve((socket) => {
      const partial = Buffer.from([2, 0, 0, 0, 0, 0, 0, 1, 1, 0x47, 0, 18]);
      socket.end(
        Buffer.concat([
          Buffer.from(
            `HTTP/1.1 200 OK\r\nContent-Type: application/ipp\r\nContent-Length: ${partial.length}\r\n\r\n`,
          ),
          partial,
        ]),
      );
    });
    const client = new IppClient({ uri, logger });
    await expect(client.getPrinterAttributes()).rejects.toSatisfy(
      (e) => e instanceof IppResponseError && /truncated/.test((e as Error).message),
    );
  });

  it('maps a connection closed mid-response to IppResponseError', async () => {
    const uri = await serve((socket) => {
      socket.end(
        'HTTP/1.1 200 OK\r\nContent-Type: application/ipp\r\nContent-Length: 500\r\n\r\n\u0002\u0000',
      );
    });
    await expect(new IppClient({ uri, logger }).getPrinterAttributes()).rejects.toBeInstanceOf(
      IppResponseError,
    );
  });

  it('maps garbage and non-200 answers to IppResponseError', async () => {
    const garbage = await serve((socket) => {
      socket.end(
        'HTTP/1.1 200 OK\r\nContent-Type: application/ipp\r\nContent-Length: 12\r\n\r\nhello world!',
      );
    });
    await expect(new IppClient({ uri: garbage, logger }).getPrinterAttributes()).rejects.toBeInstanceOf(
      IppResponseError,
    );
    const forbidden = await serve((socket) =>
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n'),
    );
    await expect(new IppClient({ uri: forbidden, logger }).getPrinterAttributes()).rejects.toBeInstanceOf(
      IppResponseError,
    );
  });

  it('maps a silent printer to a timeout (printer_unreachable) and honours the caller signal', async () => {
    const uri = await serve(() => undefined);
    const client = new IppClient({ uri, logger, timeoutMs: 200 });
    await expect(client.getPrinterAttributes()).rejects.toSatisfy(
      (e) =>
        e instanceof RetryableError &&
        e.code === 'printer_unreachable' &&
        /timed out/.test((e as Error).message),
    );
    const controller = new AbortController();
    const pending = new IppClient({ uri, logger }).getPrinterAttributes(undefined, controller.signal);
    controller.abort(new Error('stopping'));
    await expect(pending).rejects.toThrow('stopping');
  });
});
