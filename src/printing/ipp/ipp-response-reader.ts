/**
 * Reads one HTTP/1.1 answer to an IPP request from the bytes a socket delivers: the status line,
 * the few headers that frame the body (Content-Length, Transfer-Encoding: chunked, Connection,
 * Keep-Alive) and the body, collected up to a limit. Interim 1xx answers are skipped. A body with
 * neither length nor chunking runs to the end of the connection (`end()`). Pure state machine, no
 * I/O; nothing to clean up. Malformed or oversized answers throw HttpAnswerError.
 */

/** A complete answer. */
export interface HttpAnswer {
  status: number;
  body: Buffer;
  /** False when the connection cannot carry another request (Connection: close, HTTP/1.0, body to the end). */
  keepAlive: boolean;
  /** The server's `Keep-Alive: timeout=N`, in ms, when it announced one. */
  keepAliveMs?: number;
}

/** An answer that is not HTTP as this reader takes it, or larger than allowed. */
export class HttpAnswerError extends Error {}

/** The largest status line and headers accepted. */
const MAX_HEAD_BYTES = 64 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');

type Framing = { kind: 'length'; remaining: number } | { kind: 'chunked' } | { kind: 'to-end' };

/**
 * One answer's reader: `push` each chunk the socket delivers; it returns the answer once the body
 * is complete (any bytes after it are an error: nothing was asked for them), else undefined.
 * `end()` says the connection ended and returns the answer whose body ran to the end, or throws.
 */
export class HttpAnswerReader {
  /** Bytes not yet parsed (a partial head or chunk-size line). */
  private pending: Buffer | undefined;
  private head: { status: number; keepAlive: boolean; keepAliveMs?: number } | undefined;
  private framing: Framing | undefined;
  /** Chunked only: bytes left of the current chunk's data, then of the CRLF after it. */
  private chunkLeft = 0;
  private crlfLeft = 0;
  private trailers = false;
  private readonly parts: Buffer[] = [];
  private size = 0;
  /** True once any byte of the answer arrived. */
  started = false;

  constructor(private readonly maxBodyBytes: number) {}

  push(chunk: Buffer): HttpAnswer | undefined {
    this.started = true;
    let data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = undefined;
    while (!this.head) {
      if (!startsLikeHttp(data)) {
        const line = data.toString('latin1', 0, Math.min(data.length, 40)).split(/[\r\n]/, 1)[0] ?? '';
        const start = line.replace(/[^\x20-\x7e]/g, '.');
        throw new HttpAnswerError(`not an HTTP answer (it starts "${start}")`);
      }
      const end = data.indexOf(HEAD_END);
      if (end < 0) {
        if (data.length > MAX_HEAD_BYTES) throw new HttpAnswerError('HTTP head larger than 64 KiB');
        this.pending = data;
        return undefined;
      }
      const parsed = parseHead(data.toString('latin1', 0, end));
      data = data.subarray(end + 4);
      if (parsed.status >= 100 && parsed.status < 200) continue;
      this.head = parsed;
      this.framing = parsed.framing;
    }
    return this.body(data);
  }

  /** The connection ended: the answer when its body runs to the end, else an error. */
  end(): HttpAnswer {
    if (this.head && this.framing?.kind === 'to-end') return this.answer(false);
    throw new HttpAnswerError(this.started ? 'connection closed mid-response' : 'connection closed');
  }

  private body(data: Buffer): HttpAnswer | undefined {
    const framing = this.framing as Framing;
    if (framing.kind === 'to-end') {
      this.add(data);
      return undefined;
    }
    if (framing.kind === 'length') {
      if (data.length > framing.remaining) throw new HttpAnswerError('bytes after the end of the answer');
      this.add(data);
      framing.remaining -= data.length;
      return framing.remaining === 0 ? this.answer(true) : undefined;
    }
    return this.chunks(data);
  }

  private chunks(data: Buffer): HttpAnswer | undefined {
    while (data.length > 0) {
      if (this.chunkLeft > 0) {
        const take = Math.min(this.chunkLeft, data.length);
        this.add(data.subarray(0, take));
        this.chunkLeft -= take;
        data = data.subarray(take);
        if (this.chunkLeft === 0) this.crlfLeft = 2;
        continue;
      }
      if (this.crlfLeft > 0) {
        if (data[0] !== (this.crlfLeft === 2 ? 0x0d : 0x0a))
          throw new HttpAnswerError('chunk not followed by CRLF');
        this.crlfLeft--;
        data = data.subarray(1);
        continue;
      }
      const eol = data.indexOf(CRLF);
      if (eol < 0) {
        if (data.length > 1024) throw new HttpAnswerError('chunk-size line longer than 1 KiB');
        this.pending = data;
        return undefined;
      }
      const line = data.toString('latin1', 0, eol);
      data = data.subarray(eol + 2);
      if (this.trailers) {
        if (line !== '') continue;
        if (data.length > 0) throw new HttpAnswerError('bytes after the end of the answer');
        return this.answer(true);
      }
      const digits = line.split(';', 1)[0]?.trim() ?? '';
      if (!/^[0-9a-f]{1,12}$/i.test(digits))
        throw new HttpAnswerError(`bad chunk-size line "${line.slice(0, 40)}"`);
      const size = Number.parseInt(digits, 16);
      if (size === 0) this.trailers = true;
      else this.chunkLeft = size;
    }
    return undefined;
  }

  private add(data: Buffer): void {
    if (data.length === 0) return;
    this.size += data.length;
    if (this.size > this.maxBodyBytes)
      throw new HttpAnswerError(`response larger than ${sizeText(this.maxBodyBytes)}`);
    this.parts.push(data);
  }

  private answer(framed: boolean): HttpAnswer {
    const head = this.head as NonNullable<typeof this.head>;
    const body = this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts, this.size);
    return {
      status: head.status,
      body,
      keepAlive: framed && head.keepAlive,
      keepAliveMs: head.keepAliveMs,
    };
  }
}

const HTTP_START = Buffer.from('HTTP/1.');
const MIB = 1024 * 1024;

function sizeText(bytes: number): string {
  return bytes % MIB === 0 ? `${bytes / MIB} MiB` : `${bytes} bytes`;
}

/** True while the bytes so far can begin an HTTP/1.x status line. */
function startsLikeHttp(data: Buffer): boolean {
  const n = Math.min(data.length, HTTP_START.length);
  return data.compare(HTTP_START, 0, n, 0, n) === 0;
}

/** The status line and the headers that matter, from the head's text (without its final CRLFCRLF). */
function parseHead(text: string): {
  status: number;
  keepAlive: boolean;
  keepAliveMs?: number;
  framing: Framing;
} {
  const lines = text.split('\r\n');
  const match = /^HTTP\/1\.([01]) (\d{3})(?: .*)?$/.exec(lines[0] ?? '');
  if (!match) throw new HttpAnswerError(`not an HTTP/1.x status line: "${(lines[0] ?? '').slice(0, 40)}"`);
  const status = Number(match[2]);
  let keepAlive = match[1] === '1';
  let keepAliveMs: number | undefined;
  let length: number | undefined;
  let chunked = false;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new HttpAnswerError(`bad header line "${line.slice(0, 40)}"`);
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'content-length') {
      if (!/^\d+$/.test(value) || (length !== undefined && length !== Number(value)))
        throw new HttpAnswerError(`bad Content-Length "${value.slice(0, 40)}"`);
      length = Number(value);
    } else if (name === 'transfer-encoding') {
      chunked = /(^|,)\s*chunked\s*$/i.test(value);
      if (!chunked) throw new HttpAnswerError(`unsupported Transfer-Encoding "${value.slice(0, 40)}"`);
    } else if (name === 'connection') {
      const tokens = value
        .toLowerCase()
        .split(',')
        .map((t) => t.trim());
      if (tokens.includes('close')) keepAlive = false;
      else if (tokens.includes('keep-alive')) keepAlive = true;
    } else if (name === 'keep-alive') {
      const timeout = /(?:^|,)\s*timeout=(\d+)/i.exec(value);
      if (timeout) keepAliveMs = Number(timeout[1]) * 1000;
    }
  }
  // No body: 204, 304 (never for a POST to a printer, but framed all the same).
  if (status === 204 || status === 304) return { status, keepAlive, keepAliveMs, framing: length0() };
  if (chunked) return { status, keepAlive, keepAliveMs, framing: { kind: 'chunked' } };
  if (length !== undefined)
    return { status, keepAlive, keepAliveMs, framing: { kind: 'length', remaining: length } };
  return { status, keepAlive: false, keepAliveMs, framing: { kind: 'to-end' } };
}

function length0(): Framing {
  return { kind: 'length', remaining: 0 };
}
