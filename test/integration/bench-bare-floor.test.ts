/**
 * The parts of bench:floor's bare lines (bench/support/bare-ipp.ts, bare-ledger.ts): their IPP
 * against a real printer (ippeveprinter keeps every document it gets, -k), their HTTP reader
 * against answers ippeveprinter does not send (chunked, `Connection: close`), and their ledger's
 * rows.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ATTR,
  decodeAnswer,
  encodeRequest,
  IPP_BUSY,
  JOB_COMPLETED,
  OPERATION,
  PrinterConnection,
} from '../../bench/support/bare-ipp.js';
import { openLedger } from '../../bench/support/bare-ledger.js';
import { openSqlite } from '../../src/lib/sqlite.js';
import { type RunningIppEvePrinter, startIppEvePrinter } from '../support/ippeveprinter.js';
import { peersAvailable } from '../support/peers.js';

const enabled = peersAvailable('ippeveprinter');

/** The request, again while the printer answers busy (it takes one job at a time). */
async function send(
  printer: PrinterConnection,
  operation: number,
  attributes: Parameters<typeof encodeRequest>[3],
  document?: Buffer,
  onFlushed?: () => void,
) {
  for (let id = 1; ; id++) {
    const answer = decodeAnswer(
      await printer.request(
        encodeRequest(operation, id, printer.printerUri, attributes),
        document,
        onFlushed,
      ),
    );
    if (answer.status !== IPP_BUSY) return answer;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** `bytes` of text (ippeveprinter checks a document's first bytes against its format). */
const text = (bytes: number) => Buffer.from(randomBytes(bytes).toString('hex').slice(0, bytes));

/** The bytes of the kept documents whose job name holds `name`. */
function keptDocuments(spoolDir: string, name: string): Buffer[] {
  return readdirSync(spoolDir)
    .filter((file) => file.includes(name))
    .map((file) => readFileSync(join(spoolDir, file)));
}

describe.skipIf(!enabled)('bare IPP against ippeveprinter', () => {
  let printer: RunningIppEvePrinter;
  beforeAll(async () => {
    printer = await startIppEvePrinter({ name: 'Bare Floor Test' });
  });
  afterAll(async () => {
    await printer?.stop();
  });

  it('Create-Job, Send-Document (flushed before its answer) and Get-Job-Attributes until completed', async () => {
    const connection = new PrinterConnection(printer.uri);
    const document = text(5_003);
    const created = await send(connection, OPERATION.createJob, [ATTR.user('t'), ATTR.jobName('bare-xo-1')]);
    expect(created.status).toBe(0);
    const jobId = created.jobId as number;
    expect(jobId).toBeGreaterThan(0);
    let flushed = false;
    const sent = await send(
      connection,
      OPERATION.sendDocument,
      [ATTR.user('t'), ATTR.jobId(jobId), ATTR.format('text/plain'), ATTR.lastDocument()],
      document,
      () => {
        flushed = true;
      },
    );
    expect(sent.status).toBe(0);
    expect(flushed).toBe(true);
    let state: number | undefined;
    for (let poll = 0; poll < 100 && state !== JOB_COMPLETED; poll++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      state = (
        await send(connection, OPERATION.getJobAttributes, [ATTR.jobId(jobId), ATTR.requested(['job-state'])])
      ).jobState;
    }
    expect(state).toBe(JOB_COMPLETED);
    expect(keptDocuments(printer.spoolDir, '-bare-xo-1')).toContainEqual(document);
    expect(connection.connections).toBe(1);
    connection.close();
  });

  it('Print-Jobs one after another on one kept-open connection', async () => {
    const connection = new PrinterConnection(printer.uri);
    const documents = [text(900), text(70_000), text(1)];
    for (const [i, document] of documents.entries()) {
      const answer = await send(
        connection,
        OPERATION.printJob,
        [ATTR.user('t'), ATTR.jobName(`bare-pj-${i}`), ATTR.format('text/plain')],
        document,
      );
      expect(answer.status).toBe(0);
    }
    for (const [i, document] of documents.entries())
      expect(keptDocuments(printer.spoolDir, `-bare-pj-${i}`)).toContainEqual(document);
    expect(connection.connections).toBe(1);
    connection.close();
  });
});

describe('bare IPP answers ippeveprinter does not send', () => {
  /** An IPP answer: status 0, job-id 7. */
  const body = encodeRequest(0, 1, 'ipp://x/', [ATTR.jobId(7)]);
  const half = body.length >> 1;
  /** The server's answers, one per request, each written in the pieces given (10 ms apart). */
  const answers: (string | Buffer)[][] = [
    [
      `HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${half.toString(16)}\r\n`,
      Buffer.concat([
        body.subarray(0, half),
        Buffer.from(`\r\n${(body.length - half).toString(16)}\r\n`),
        body.subarray(half),
        Buffer.from('\r\n0\r\n\r\n'),
      ]),
    ],
    [
      Buffer.concat([
        Buffer.from(`HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n`),
        body,
      ]),
    ],
    [Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n`), body])],
  ];
  let server: Server;
  let port = 0;
  beforeAll(async () => {
    server = createServer((socket) => {
      socket.on('data', () => {
        const pieces = answers.shift() ?? [];
        for (const [i, piece] of pieces.entries()) setTimeout(() => socket.write(piece), 10 * i);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('reads a chunked answer in two packets after an interim 100, and reconnects after Connection: close', async () => {
    const connection = new PrinterConnection(`ipp://127.0.0.1:${port}/ipp/print`);
    expect(decodeAnswer(await connection.request(Buffer.from('a')))).toEqual({ status: 0, jobId: 7 });
    expect(decodeAnswer(await connection.request(Buffer.from('b')))).toEqual({ status: 0, jobId: 7 });
    expect(connection.connections).toBe(1);
    expect(decodeAnswer(await connection.request(Buffer.from('c')))).toEqual({ status: 0, jobId: 7 });
    expect(connection.connections).toBe(2);
    connection.close();
  });
});

describe('bare ledger', () => {
  it('keeps a job once, and its event rows until their batch is acknowledged', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bare-ledger-'));
    try {
      const db = openSqlite(join(dir, 'floor.db'));
      const ledger = openLedger(db);
      const received = ledger.claimed('j1', '{}', '{"kind":"received"}');
      expect(received).toBeTypeOf('number');
      expect(ledger.claimed('j1', '{}', '{"kind":"received"}')).toBeUndefined();
      ledger.submitting('j1');
      ledger.flushed('j1', 5);
      const printing = ledger.submitted('j1', '{"kind":"printing"}');
      const completed = ledger.ended('j1', 'completed', '{"kind":"completed"}');
      expect(
        db.prepare('SELECT state, printer_job_id, document_flushed, document_sent FROM jobs').get(),
      ).toEqual({
        state: 'completed',
        printer_job_id: 5,
        document_flushed: 1,
        document_sent: 1,
      });
      ledger.acknowledge([received as number, printing]);
      expect(db.prepare('SELECT id FROM outbox').all()).toEqual([{ id: completed }]);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      ledger.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
