/**
 * Refused uploads over one real keep-alive TCP connection: a multipart body without a boundary
 * answers 400 naming the problem (not 500), an oversized block list answers 400, and after
 * each the same connection carries the next request. A body too long to drop is answered with
 * `Connection: close` and the socket is closed cleanly after the answer.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type SfapiHarness, startSfapiHarness } from './emulator-sfapi-harness.js';

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One HTTP/1.1 connection: send a request, read exactly one response. */
class RawConnection {
  private buffer = Buffer.alloc(0);
  private waiting: (() => void) | undefined;
  closed = false;
  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.waiting?.();
    });
    socket.on('close', () => {
      this.closed = true;
      this.waiting?.();
    });
    socket.on('error', () => undefined);
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  async exchange(method: string, path: string, headers: Record<string, string>, body: Buffer | string) {
    const bytes = Buffer.from(body);
    const head = [
      `${method} ${path} HTTP/1.1`,
      'Host: 127.0.0.1',
      'Connection: keep-alive',
      `Content-Length: ${bytes.length}`,
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ].join('\r\n');
    this.socket.write(`${head}\r\n\r\n`);
    const answer = this.response();
    // In 1 MiB pieces, each after the last was taken by the kernel: the server sees the body
    // arrive over many reads, as from a real client, and may answer before it has all of it.
    for (let at = 0; at < bytes.length && !this.closed; at += 1024 * 1024) {
      const piece = bytes.subarray(at, at + 1024 * 1024);
      if (!this.socket.write(piece)) {
        await new Promise((resolve) => {
          this.socket.once('drain', resolve);
          this.socket.once('close', resolve);
        });
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    return answer;
  }

  private async response(): Promise<RawResponse> {
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end >= 0) {
        const [statusLine = '', ...lines] = this.buffer.subarray(0, end).toString('latin1').split('\r\n');
        const headers = Object.fromEntries(
          lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
        );
        const length = Number(headers['content-length'] ?? 0);
        if (this.buffer.length >= end + 4 + length) {
          const body = this.buffer.subarray(end + 4, end + 4 + length).toString('utf8');
          this.buffer = this.buffer.subarray(end + 4 + length);
          return { status: Number(statusLine.split(' ')[1]), headers, body };
        }
      }
      if (this.closed) throw new Error('the connection was closed before a whole response arrived');
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
      });
      this.waiting = undefined;
    }
  }

  /** Ends the client's sending side (as a client does after `Connection: close`). */
  endOwnSide(): void {
    this.socket.end();
  }

  /** Resolves once the server has closed the connection. */
  async closedByServer(): Promise<void> {
    while (!this.closed) {
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
      });
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

const xmlError = (code: string, message: string) =>
  `<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`;

describe('storage uploads over one keep-alive connection', () => {
  let h: SfapiHarness;
  let port: number;

  beforeAll(async () => {
    h = await startSfapiHarness();
    port = Number(new URL(h.base).port);
  });
  afterAll(async () => h?.close());

  /** Path and query of a fresh upload URL. */
  async function uploadPath(): Promise<string> {
    const { body } = await call(h, '/sfapi/PrepareUpload/');
    const url = new URL(body.sasUri as string);
    return `${url.pathname}${url.search}`;
  }

  it('answers a multipart body without a boundary with 400 naming it, and the connection goes on', async () => {
    const path = await uploadPath();
    const conn = await RawConnection.open(port);
    try {
      const refused = await conn.exchange(
        'PUT',
        path,
        { 'x-ms-blob-type': 'BlockBlob', 'content-type': 'multipart/form-data' },
        '--x\r\nContent-Disposition: form-data; name="file"\r\n\r\nhello\r\n--x--\r\n',
      );
      expect(refused.status).toBe(400);
      expect(refused.body).toBe(
        xmlError(
          'InvalidInput',
          'content-type: multipart/form-data needs a boundary parameter (multipart/form-data; boundary=...)',
        ),
      );
      expect(refused.headers['connection']).toBe('keep-alive');
      const stored = await conn.exchange(
        'PUT',
        path,
        { 'x-ms-blob-type': 'BlockBlob', 'content-type': 'application/pdf' },
        '%PDF-1.4 kept',
      );
      expect(stored.status).toBe(201);
      expect(conn.closed).toBe(false);
    } finally {
      conn.close();
    }
  });

  it('answers an oversized block list with 400 and the same connection carries the next request', async () => {
    const path = await uploadPath();
    const conn = await RawConnection.open(port);
    try {
      const oversized = Buffer.alloc(12 * 1024 * 1024, 'a');
      const refused = await conn.exchange('PUT', `${path}&comp=blocklist`, {}, oversized);
      expect(refused.status).toBe(400);
      expect(refused.body).toBe(
        xmlError('InvalidInput', `blocklist: must be at most ${8 * 1024 * 1024} bytes`),
      );
      expect(refused.headers['connection']).toBe('keep-alive');
      const block = await conn.exchange('PUT', `${path}&comp=block&blockid=${btoa('block-1')}`, {}, 'abc');
      expect(block.status).toBe(201);
      expect(conn.closed).toBe(false);
    } finally {
      conn.close();
    }
  });

  it('answers with Connection: close when the unread rest is too long to drop, and closes cleanly', async () => {
    const path = await uploadPath();
    const conn = await RawConnection.open(port);
    try {
      const big = Buffer.alloc(20 * 1024 * 1024, 'a');
      const refused = await conn.exchange('PUT', `${path}&comp=blocklist`, {}, big);
      expect(refused.status).toBe(400);
      expect(refused.headers['connection']).toBe('close');
      expect(refused.body).toBe(
        xmlError('InvalidInput', `blocklist: must be at most ${8 * 1024 * 1024} bytes`),
      );
      conn.endOwnSide();
      await conn.closedByServer();
    } finally {
      conn.close();
    }
  });
});
