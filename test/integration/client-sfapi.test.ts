import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/client/http-base.js';
import { SfapiClient } from '../../src/client/sfapi-client.js';

describe('SfapiClient.print', () => {
  let server: Server;
  let http: HttpClient;
  const bodies: Record<string, unknown>[] = [];
  beforeEach(async () => {
    bodies.length = 0;
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => {
        text += c.toString();
      });
      req.on('end', () => {
        const body = JSON.parse(text) as Record<string, unknown>;
        bodies.push(body);
        const pending = bodies.length < 3;
        res.writeHead(pending ? 412 : 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(pending ? { fileid: 'f-7', sasUri: '' } : { jobid: 'job-1' }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    http = new HttpClient({
      baseUrl: base,
      timeoutMs: 2000,
      tokens: { token: async () => 't', invalidate: () => {} },
    });
  });
  afterEach(async () => {
    await http.close();
    await new Promise((r) => server.close(r));
  });

  it('repeats Print with the returned fileid while the URL file is being fetched (412)', async () => {
    const client = new SfapiClient(http, { printRetryDelayMs: 1 });
    const result = await client.print({
      fileurl: 'https://example.test/a.pdf',
      type: 'pdf',
      printerid: 'p1',
    });
    expect(result).toEqual({ jobid: 'job-1' });
    expect(bodies).toEqual([
      { fileurl: 'https://example.test/a.pdf', type: 'pdf', printerid: 'p1' },
      { fileid: 'f-7', type: 'pdf', printerid: 'p1' },
      { fileid: 'f-7', type: 'pdf', printerid: 'p1' },
    ]);
  });

  it('gives up with a clear error after the retry limit', async () => {
    const client = new SfapiClient(http, { printRetryDelayMs: 1, maxPrintRetries: 0 });
    await expect(
      client.print({ fileurl: 'https://example.test/a.pdf', type: 'pdf', printerid: 'p1' }),
    ).rejects.toThrow('file still being fetched after 0 retries');
  });
});
