import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChannelClient, writeSpoolFile } from '../../src/client/channel-client.js';
import {
  AuthError,
  HttpClient,
  HttpError,
  parseRetryAfter,
  type TokenSource,
} from '../../src/client/http-base.js';
import { RetryableError } from '../../src/lib/errors.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

describe('HttpClient against a local server', () => {
  let server: Server;
  let base: string;
  let handler: Handler;
  let dir: string;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'http-'));
    server = createServer((req, res) => handler(req, res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  function tokens(): TokenSource & { issued: string[] } {
    let n = 0;
    const issued: string[] = [];
    return {
      issued,
      async token() {
        const t = `t${n}`;
        issued.push(t);
        return t;
      },
      invalidate() {
        n++;
      },
    };
  }

  it('maps 503 with Retry-After to a RetryableError', async () => {
    handler = (_req, res) => {
      res.writeHead(503, { 'retry-after': '7', 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'maintenance' }));
    };
    const http = new HttpClient({ baseUrl: base, timeoutMs: 2000 });
    const error = await http.json({ method: 'GET', path: '/x' }).catch((e) => e);
    expect(error).toBeInstanceOf(RetryableError);
    expect(error).toMatchObject({ code: 'http_503', retryAfterMs: 7000, message: 'HTTP 503: maintenance' });
    await http.close();
  });

  it('maps a 4xx to HttpError with the server message', async () => {
    handler = (_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'not_found', message: 'printer p9 not found' }));
    };
    const http = new HttpClient({ baseUrl: base, timeoutMs: 2000 });
    const error = await http.json({ method: 'GET', path: '/x' }).catch((e) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect(error).toMatchObject({ status: 404, message: 'HTTP 404: printer p9 not found' });
    await http.close();
  });

  it('refreshes the token once on 401 and retries; a second 401 is an AuthError', async () => {
    handler = (req, res) => {
      const ok = req.headers.authorization === 'Bearer t1';
      res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify(ok ? { fine: true } : { error: 'invalid_token' }));
    };
    const source = tokens();
    const http = new HttpClient({ baseUrl: base, timeoutMs: 2000, tokens: source });
    expect(await http.json({ method: 'GET', path: '/x' })).toEqual({ fine: true });
    expect(source.issued).toEqual(['t0', 't1']);
    handler = (_req, res) => {
      res.writeHead(401);
      res.end();
    };
    await expect(http.json({ method: 'GET', path: '/x' })).rejects.toBeInstanceOf(AuthError);
    await http.close();
  });

  it('maps a refused connection to a RetryableError', async () => {
    const http = new HttpClient({ baseUrl: 'http://127.0.0.1:1', timeoutMs: 2000 });
    const error = (await http.json({ method: 'GET', path: '/x' }).catch((e) => e)) as RetryableError;
    expect(error).toBeInstanceOf(RetryableError);
    expect(error.code).toBe('network');
    await http.close();
  });

  it('parses Retry-After seconds and dates', () => {
    expect(parseRetryAfter('3', 0)).toBe(3000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4000)).toBe(6000);
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
    expect(parseRetryAfter(undefined, 0)).toBeUndefined();
  });

  it('downloads a document, resuming an interrupted one with Range, and checks sha256', async () => {
    const content = Buffer.from('%PDF-1.4 the whole document body, long enough to split');
    const sha256 = createHash('sha256').update(content).digest('hex');
    const ranges: (string | undefined)[] = [];
    handler = (req, res) => {
      ranges.push(req.headers.range);
      const match = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
      const from = match ? Number(match[1]) : 0;
      res.writeHead(match ? 206 : 200, {
        'content-length': String(content.length - from),
        ...(match ? { 'content-range': `bytes ${from}-${content.length - 1}/${content.length}` } : {}),
      });
      res.end(content.subarray(from));
    };
    const http = new HttpClient({ baseUrl: base, timeoutMs: 2000 });
    const channel = new ChannelClient(http);
    const target = join(dir, 'doc.pdf');
    writeFileSync(target, content.subarray(0, 10));
    const doc = {
      url: '/doc',
      size: content.length,
      sha256,
      extension: 'pdf',
      content_type: 'application/pdf',
      name: 'd',
    };
    await channel.download('j1', doc, target);
    expect(readFileSync(target)).toEqual(content);
    expect(ranges).toEqual(['bytes=10-']);
    writeFileSync(target, 'corrupt--');
    const bad: RetryableError = await channel
      .download('j1', { ...doc, sha256: 'ab'.repeat(32) }, target)
      .catch((e) => e);
    expect(bad).toBeInstanceOf(RetryableError);
    expect(bad.code).toBe('checksum_mismatch');

    // A whole download (nothing on disk yet) is hashed on its way in.
    rmSync(target, { force: true });
    await channel.download('j1', doc, target);
    expect(readFileSync(target)).toEqual(content);
    expect(ranges.at(-1)).toBeUndefined();
    rmSync(target);
    const wrong: RetryableError = await channel
      .download('j1', { ...doc, sha256: 'cd'.repeat(32) }, target)
      .catch((e) => e);
    expect(wrong.code).toBe('checksum_mismatch');
    expect(existsSync(target)).toBe(false);
    await http.close();
  });

  it('keeps a small document in memory with no spool file, and only a matching one', async () => {
    const content = Buffer.from('%PDF-1.4 a small document kept in memory, no spool file');
    const sha256 = createHash('sha256').update(content).digest('hex');
    handler = (_req, res) => {
      res.writeHead(200, { 'content-length': String(content.length) });
      res.end(content);
    };
    const http = new HttpClient({ baseUrl: base, timeoutMs: 2000 });
    const channel = new ChannelClient(http);
    const target = join(dir, 'small.pdf');
    const doc = {
      url: '/doc',
      size: content.length,
      sha256,
      extension: 'pdf',
      content_type: 'application/pdf',
      name: 'd',
    };
    const kept = await channel.download('j2', doc, target, undefined, { keepUpTo: content.length });
    expect(kept).toEqual(content);
    expect(existsSync(target)).toBe(false);
    // Written when the caller cannot hold it: private, in one step.
    await writeSpoolFile(target, kept as Buffer);
    expect(readFileSync(target)).toEqual(content);
    expect(statSync(target).mode & 0o777).toBe(0o600);
    // Larger than keepUpTo: streamed to the file only, as before.
    rmSync(target);
    expect(
      await channel.download('j2', doc, target, undefined, { keepUpTo: content.length - 1 }),
    ).toBeUndefined();
    expect(readFileSync(target)).toEqual(content);
    // A mismatch writes no spool file.
    rmSync(target);
    const wrong: RetryableError = await channel
      .download('j2', { ...doc, sha256: 'ef'.repeat(32) }, target, undefined, { keepUpTo: content.length })
      .catch((e) => e);
    expect(wrong.code).toBe('checksum_mismatch');
    expect(existsSync(target)).toBe(false);
    // More bytes than announced: refused, nothing written.
    const short = { ...doc, size: content.length - 5 };
    const tooLong: RetryableError = await channel
      .download('j2', short, target, undefined, { keepUpTo: content.length })
      .catch((e) => e);
    expect(tooLong).toBeInstanceOf(RetryableError);
    expect(tooLong.message).toMatch(/more than the announced/);
    // Counted as a failed download (the document is at fault), not waited out as a lost connection.
    expect(tooLong.code).toBe('size_mismatch');
    expect(existsSync(target)).toBe(false);
    await http.close();
  });
});
