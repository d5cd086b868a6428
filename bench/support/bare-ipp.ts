/**
 * The IPP of bench:floor's bare lines, in bare Node with none of the agent's code: requests
 * encoded here, written with their HTTP/1.1 head on one kept-open TCP socket in one write, the
 * answer read here (Content-Length or chunked body; a `Connection: close` answer closes the
 * socket and the next request opens a new one). One request at a time per connection. Only what
 * the bare loop reads of an answer is decoded: the status, `job-id`, `job-state` and
 * `job-impressions-completed`.
 */
import { connect, type Socket } from 'node:net';

const TAG = {
  operation: 0x01,
  end: 0x03,
  integer: 0x21,
  boolean: 0x22,
  enum: 0x23,
  name: 0x42,
  keyword: 0x44,
  uri: 0x45,
  charset: 0x47,
  language: 0x48,
  mime: 0x49,
} as const;

export const OPERATION = { printJob: 0x02, createJob: 0x05, sendDocument: 0x06, getJobAttributes: 0x09 };
export const IPP_OK_MAX = 0x00ff;
export const IPP_BUSY = 0x0507;
/** job-state values from which a job changes no more: canceled, aborted, completed. */
export const JOB_COMPLETED = 9;
export const FINAL_JOB_STATES = new Set([7, 8, 9]);

type Value = string | number | boolean;
/** One operation attribute: its value tag, name and value(s). */
export type Attribute = [tag: number, name: string, value: Value | Value[]];

export const ATTR = {
  user: (name: string): Attribute => [TAG.name, 'requesting-user-name', name],
  jobName: (name: string): Attribute => [TAG.name, 'job-name', name],
  jobId: (id: number): Attribute => [TAG.integer, 'job-id', id],
  format: (mime: string): Attribute => [TAG.mime, 'document-format', mime],
  lastDocument: (): Attribute => [TAG.boolean, 'last-document', true],
  requested: (names: string[]): Attribute => [TAG.keyword, 'requested-attributes', names],
};

function valueBytes(tag: number, value: Value): Buffer {
  if (tag === TAG.integer || tag === TAG.enum) {
    const bytes = Buffer.alloc(4);
    bytes.writeInt32BE(Number(value));
    return bytes;
  }
  if (tag === TAG.boolean) return Buffer.from([value ? 1 : 0]);
  return Buffer.from(String(value), 'utf8');
}

/** The IPP 2.0 request `operation` to `printerUri` with `attributes` after the three required ones. */
export function encodeRequest(
  operation: number,
  requestId: number,
  printerUri: string,
  attributes: Attribute[],
): Buffer {
  const parts: Buffer[] = [Buffer.from([2, 0, 0, operation, 0, 0, 0, 0, TAG.operation])];
  parts[0]?.writeInt32BE(requestId, 4);
  const all: Attribute[] = [
    [TAG.charset, 'attributes-charset', 'utf-8'],
    [TAG.language, 'attributes-natural-language', 'en'],
    [TAG.uri, 'printer-uri', printerUri],
    ...attributes,
  ];
  for (const [tag, name, value] of all) {
    (Array.isArray(value) ? value : [value]).forEach((one, i) => {
      const nameBytes = Buffer.from(i === 0 ? name : '');
      const bytes = valueBytes(tag, one);
      const head = Buffer.alloc(3);
      head.writeUInt8(tag);
      head.writeUInt16BE(nameBytes.length, 1);
      const length = Buffer.alloc(2);
      length.writeUInt16BE(bytes.length);
      parts.push(head, nameBytes, length, bytes);
    });
  }
  parts.push(Buffer.from([TAG.end]));
  return Buffer.concat(parts);
}

/** What the bare loop reads of an IPP answer. */
export interface IppAnswer {
  status: number;
  jobId?: number;
  jobState?: number;
  impressions?: number;
}

const INTEGERS: Record<string, 'jobId' | 'jobState' | 'impressions'> = {
  'job-id': 'jobId',
  'job-state': 'jobState',
  'job-impressions-completed': 'impressions',
};

/** The status and the integer attributes the loop reads, from an IPP answer. */
export function decodeAnswer(body: Buffer): IppAnswer {
  const answer: IppAnswer = { status: body.readUInt16BE(2) };
  let at = 8;
  while (at < body.length) {
    const tag = body.readUInt8(at);
    at += 1;
    if (tag === TAG.end) break;
    if (tag < 0x10) continue; // the start of a group
    const nameLength = body.readUInt16BE(at);
    const name = body.toString('utf8', at + 2, at + 2 + nameLength);
    at += 2 + nameLength;
    const valueLength = body.readUInt16BE(at);
    const field = INTEGERS[name];
    if (field && valueLength === 4) answer[field] = body.readInt32BE(at + 2);
    at += 2 + valueLength;
  }
  return answer;
}

/** One kept-open HTTP/1.1 connection to a printer, one request at a time. */
export class PrinterConnection {
  readonly printerUri: string;
  private readonly host: string;
  private readonly port: number;
  private readonly path: string;
  private socket: Socket | undefined;
  private received: Buffer = Buffer.alloc(0);
  private waiting: { resolve(body: Buffer): void; reject(error: Error): void } | undefined;
  /** Connections opened (the first and any after a `Connection: close`). */
  connections = 0;

  constructor(uri: string) {
    const url = new URL(uri);
    this.host = url.hostname;
    this.port = Number(url.port || 631);
    this.path = url.pathname;
    this.printerUri = uri;
  }

  /**
   * Sends `ipp` (and `document` after it) in one write; `onFlushed` runs once every byte is with
   * the kernel (at once when the write took them all, else from the write's callback). Resolves
   * with the IPP answer's body.
   */
  request(ipp: Buffer, document?: Buffer, onFlushed?: () => void): Promise<Buffer> {
    const socket = this.connected();
    const length = ipp.length + (document?.length ?? 0);
    const head = `POST ${this.path} HTTP/1.1\r\nHost: ${this.host}:${this.port}\r\nContent-Type: application/ipp\r\nContent-Length: ${length}\r\n\r\n`;
    const answer = new Promise<Buffer>((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
    const bytes = Buffer.concat(document ? [Buffer.from(head), ipp, document] : [Buffer.from(head), ipp]);
    let flushed = false;
    const flush = () => {
      if (flushed) return;
      flushed = true;
      onFlushed?.();
    };
    socket.write(bytes, () => flush());
    if (socket.writableLength === 0) flush();
    return answer;
  }

  close(): void {
    this.socket?.destroy();
    this.socket = undefined;
  }

  private connected(): Socket {
    if (this.socket && !this.socket.destroyed) return this.socket;
    const socket = connect({ host: this.host, port: this.port, noDelay: true });
    this.connections += 1;
    this.received = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      this.received = this.received.length === 0 ? chunk : Buffer.concat([this.received, chunk]);
      this.parse();
    });
    const fail = (error: Error) => {
      if (this.socket !== socket) return; // an old connection, closed after its answer
      const waiting = this.waiting;
      this.waiting = undefined;
      this.socket = undefined;
      waiting?.reject(error);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('the printer closed the connection')));
    this.socket = socket;
    return socket;
  }

  /** Takes one whole answer from the bytes received, when they hold one. */
  private parse(): void {
    const end = this.received.indexOf('\r\n\r\n');
    if (end < 0) return;
    const head = this.received.toString('latin1', 0, end).split('\r\n');
    const status = Number(head[0]?.split(' ')[1]);
    const header = (name: string) =>
      head
        .slice(1)
        .find((line) => line.toLowerCase().startsWith(`${name}:`))
        ?.slice(name.length + 1)
        .trim()
        .toLowerCase();
    let at = end + 4;
    if (status >= 100 && status < 200) {
      this.received = this.received.subarray(at);
      this.parse();
      return;
    }
    let body: Buffer;
    if (header('transfer-encoding') === 'chunked') {
      const chunks: Buffer[] = [];
      for (;;) {
        const lineEnd = this.received.indexOf('\r\n', at);
        if (lineEnd < 0) return;
        const size = Number.parseInt(this.received.toString('latin1', at, lineEnd), 16);
        if (this.received.length < lineEnd + 2 + size + 2) return;
        if (size === 0) {
          at = lineEnd + 4;
          break;
        }
        chunks.push(this.received.subarray(lineEnd + 2, lineEnd + 2 + size));
        at = lineEnd + 2 + size + 2;
      }
      body = Buffer.concat(chunks);
    } else {
      const length = Number(header('content-length'));
      if (!Number.isFinite(length)) throw new Error(`an answer without a length: ${head[0]}`);
      if (this.received.length < at + length) return;
      body = this.received.subarray(at, at + length);
      at += length;
    }
    this.received = this.received.subarray(at);
    const waiting = this.waiting;
    this.waiting = undefined;
    if (header('connection') === 'close') this.close();
    if (status !== 200) waiting?.reject(new Error(`the printer answered HTTP ${status}`));
    else waiting?.resolve(body);
  }
}
