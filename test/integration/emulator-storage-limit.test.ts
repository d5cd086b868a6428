/**
 * The emulator's largest document (maxDocumentBytes, 1 MiB here): a raw body, a multipart part,
 * a block list and a fileurl fetch over it are refused with 413 RequestBodyTooLarge (400 naming
 * fileurl for the fetch), answered at once, with nothing stored; the same upload URL then takes
 * a document within the limit.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { ManualClock } from '../../src/lib/clock.js';
import { silentLogger } from '../../src/log/logger.js';
import { call, type SfapiHarness, startSfapiHarness } from './emulator-sfapi-harness.js';

const LIMIT = 1024 * 1024;
const TOO_LARGE = `the document exceeds ${LIMIT} bytes`;
const blob = { 'x-ms-blob-type': 'BlockBlob', 'content-type': 'application/pdf' };

let h: SfapiHarness;
let server: Server;
let origin: string;

beforeAll(async () => {
  h = await startSfapiHarness(new ManualClock(Date.now()), silentLogger(), ['127.0.0.0/8'], LIMIT);
  const big = randomBytes(LIMIT + 1);
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/pdf' });
    res.end(big);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await h?.close();
});

async function prepare(): Promise<{ fileid: string; sasUri: string }> {
  const { status, body } = await call(h, '/sfapi/PrepareUpload/');
  expect(status).toBe(200);
  return body;
}

async function put(url: string, body: Buffer | string, headers: Record<string, string> = {}) {
  const response = await request(url, { method: 'PUT', headers, body });
  return { status: response.statusCode, text: await response.body.text(), headers: response.headers };
}

/**
 * A multipart/form-data upload whose part `file` holds `bytes`, written out by hand: undici's
 * FormData carrying a Blob of this size never finishes sending on Node 24.
 */
function multipartFile(bytes: Buffer, filename: string): { body: Buffer; headers: Record<string, string> } {
  const boundary = `printrelay-${randomBytes(8).toString('hex')}`;
  const head =
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n` +
    'Content-Type: application/pdf\r\n\r\n';
  return {
    body: Buffer.concat([Buffer.from(head), bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    headers: { 'x-ms-blob-type': 'BlockBlob', 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

/** A 413 of the storage endpoint naming the limit. */
function expectTooLarge(answer: Awaited<ReturnType<typeof put>>): void {
  expect(answer.status).toBe(413);
  expect(answer.headers['x-ms-error-code']).toBe('RequestBodyTooLarge');
  expect(answer.text).toContain(`<Message>${TOO_LARGE}</Message>`);
}

/** Files of the upload: its record's state and size (undefined size while nothing is stored). */
function record(fileid: string) {
  const file = h.emulator.app.emulator.store.storedFiles.find(fileid);
  return { state: file?.state, size: file?.size };
}

describe('the largest document', () => {
  it('refuses a raw body one byte over the limit, then takes one at the limit on the same URL', async () => {
    const { fileid, sasUri } = await prepare();
    expectTooLarge(await put(sasUri, randomBytes(LIMIT + 1), blob));
    expect(record(fileid).state).toBe('pending');
    expect((await put(sasUri, randomBytes(LIMIT), blob)).status).toBe(201);
    expect(record(fileid)).toEqual({ state: 'ready', size: LIMIT });
  });

  it('refuses a multipart part over the limit at once (the parser is not left waiting on the part)', async () => {
    const { fileid, sasUri } = await prepare();
    const big = multipartFile(randomBytes(LIMIT + 1), 'big.pdf');
    expectTooLarge(await put(sasUri, big.body, big.headers));
    expect(record(fileid).state).toBe('pending');
    const small = multipartFile(randomBytes(1000), 'small.pdf');
    expect((await put(sasUri, small.body, small.headers)).status).toBe(201);
    expect(record(fileid)).toEqual({ state: 'ready', size: 1000 });
  });

  it('refuses a block list whose blocks add up to more than the limit, keeping the blocks', async () => {
    const { fileid, sasUri } = await prepare();
    const ids = ['a', 'b'].map((n) => Buffer.from(`block-${n}`).toString('base64'));
    for (const id of ids) {
      const answer = await put(
        `${sasUri}&comp=block&blockid=${encodeURIComponent(id)}`,
        randomBytes(LIMIT / 2 + 1),
      );
      expect(answer.status).toBe(201);
    }
    const both = `<BlockList>${ids.map((id) => `<Latest>${id}</Latest>`).join('')}</BlockList>`;
    expectTooLarge(await put(`${sasUri}&comp=blocklist`, both));
    expect(record(fileid).state).toBe('pending');
    // The blocks are still there: a list of one of them commits.
    const one = `<BlockList><Latest>${ids[0]}</Latest></BlockList>`;
    expect((await put(`${sasUri}&comp=blocklist`, one)).status).toBe(201);
    expect(record(fileid)).toEqual({ state: 'ready', size: LIMIT / 2 + 1 });
  });

  it('refuses a fileurl document over the limit, naming fileurl and the limit', async () => {
    let answer = await call(h, '/sfapi/Print/', {
      method: 'POST',
      body: { fileurl: `${origin}/big.pdf`, type: 'pdf', printerid: h.printerId },
    });
    while (answer.status === 412) {
      answer = await call(h, '/sfapi/Print/', {
        method: 'POST',
        body: { fileid: answer.body.fileid, type: 'pdf', printerid: h.printerId },
      });
    }
    expect(answer.status).toBe(400);
    expect(answer.body.field).toBe('fileurl');
    expect(answer.body.message).toBe(`fileurl: fetching fileurl failed: ${TOO_LARGE}`);
  });
});
