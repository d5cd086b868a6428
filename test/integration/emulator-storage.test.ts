import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormData, request } from 'undici';
import { ManualClock } from '../../src/lib/clock.js';
import { createLogger } from '../../src/log/logger.js';
import { call, type SfapiHarness, startSfapiHarness } from './emulator-sfapi-harness.js';

let h: SfapiHarness;
const clock = new ManualClock(Date.now());

beforeAll(async () => {
  h = await startSfapiHarness(clock);
});
afterAll(async () => {
  await h?.close();
});

async function prepare(): Promise<{ fileid: string; sasUri: string }> {
  const { status, body } = await call(h, '/sfapi/PrepareUpload/');
  expect(status).toBe(200);
  return body;
}

async function put(
  url: string,
  body: string | Buffer | FormData | Readable,
  headers: Record<string, string> = {},
) {
  const response = await request(url, { method: 'PUT', headers, body });
  return { status: response.statusCode, text: await response.body.text(), headers: response.headers };
}

function stored(fileid: string): Promise<Buffer> {
  const record = h.emulator.app.emulator.store.storedFiles.find(fileid);
  if (!record) throw new Error(`no record of ${fileid}`);
  expect(record.path.startsWith(join(h.dataDir, 'files', fileid))).toBe(true);
  return readFile(record.path);
}

/** Resolves once the emulator streams an upload of the file into a temporary file. */
async function uploadStarted(fileid: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const names = await readdir(join(h.dataDir, 'files'));
    if (names.some((n) => n.startsWith(fileid) && n.endsWith('.tmp'))) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`the upload of ${fileid} never started`);
}

/** Resolves once no temporary file of the file's uploads is left; throws when one stays. */
async function noUploadLeft(fileid: string): Promise<void> {
  let left: string[] = [];
  for (let i = 0; i < 500; i++) {
    left = (await readdir(join(h.dataDir, 'files'))).filter(
      (n) => n.startsWith(fileid) && n.endsWith('.tmp'),
    );
    if (left.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`the cut upload of ${fileid} was never given up: ${left.join(', ')} left`);
}

/**
 * `size` random bytes after a PDF header: binary content as the storage tests need it that Print
 * takes as `pdf` (Print checks the header, docs/print-api.md).
 */
function pdfBytes(size: number): Buffer {
  return Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(size)]);
}

/** Prints the file, proving the upload made it printable. */
async function printable(fileid: string): Promise<void> {
  const print = await call(h, '/sfapi/Print/', {
    method: 'POST',
    body: { fileid, type: 'pdf', printerid: h.printerId },
  });
  expect(print.status).toBe(200);
}

describe('PrepareUpload', () => {
  it('returns a fileid and an absolute signed sasUri on the emulator', async () => {
    const { fileid, sasUri } = await prepare();
    const url = new URL(sasUri);
    expect(url.origin).toBe(h.base);
    expect(url.pathname).toBe(`/storage/uploads/${fileid}`);
    expect(url.searchParams.get('sig')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(Date.parse(url.searchParams.get('se') ?? '')).toBe(clock.now() + 3600_000);
  });
});

describe('uploads', () => {
  it('takes the multipart form of the spec, streaming the part named file', async () => {
    const { fileid, sasUri } = await prepare();
    const content = pdfBytes(300_000);
    const form = new FormData();
    form.append('comment', 'ignored');
    form.append('file', new Blob([content]), 'doc.pdf');
    const answer = await put(sasUri, form, { 'x-ms-blob-type': 'BlockBlob' });
    expect(answer).toMatchObject({ status: 201, text: '' });
    expect((await stored(fileid)).equals(content)).toBe(true);
    await printable(fileid);
  });

  it('refuses a multipart body without a file part, naming it', async () => {
    const { sasUri } = await prepare();
    const form = new FormData();
    form.append('other', 'x');
    const answer = await put(sasUri, form, { 'x-ms-blob-type': 'BlockBlob' });
    expect(answer.status).toBe(400);
    expect(answer.text).toMatch(/part named file/);
  });

  it('takes a raw streamed body (Azure SDK, small files)', async () => {
    const { fileid, sasUri } = await prepare();
    const chunks = [pdfBytes(70_000), randomBytes(70_000), randomBytes(5)];
    const answer = await put(sasUri, Readable.from(chunks), {
      'x-ms-blob-type': 'BlockBlob',
      'content-type': 'application/pdf',
    });
    expect(answer.status).toBe(201);
    expect((await stored(fileid)).equals(Buffer.concat(chunks))).toBe(true);
    await printable(fileid);
  });

  it('needs x-ms-blob-type on a whole-blob upload', async () => {
    const { sasUri } = await prepare();
    const answer = await put(sasUri, 'x', { 'content-type': 'application/pdf' });
    expect(answer.status).toBe(400);
    expect(answer.text).toMatch(/x-ms-blob-type/);
  });

  it('assembles blocks uploaded in parallel and out of order, in the listed order', async () => {
    const { fileid, sasUri } = await prepare();
    const blocks = Array.from({ length: 8 }, (_, i) => ({
      id: Buffer.from(`block-${String(i).padStart(6, '0')}`).toString('base64'),
      data: i === 0 ? pdfBytes(50_000) : randomBytes(50_000 + i),
    }));
    const order = [5, 2, 7, 0, 3, 6, 1, 4];
    const answers = await Promise.all(
      order.map((i) =>
        put(`${sasUri}&comp=block&blockid=${encodeURIComponent(blocks[i]!.id)}`, blocks[i]!.data),
      ),
    );
    for (const answer of answers) expect(answer.status).toBe(201);
    const xml = `<?xml version="1.0" encoding="utf-8"?><BlockList>${blocks.map((b) => `<Latest>${b.id}</Latest>`).join('')}</BlockList>`;
    const commit = await put(`${sasUri}&comp=blocklist`, xml, { 'content-type': 'application/xml' });
    expect(commit).toMatchObject({ status: 201, text: '' });
    const whole = Buffer.concat(blocks.map((b) => b.data));
    expect((await stored(fileid)).equals(whole)).toBe(true);
    const record = h.emulator.app.emulator.store.storedFiles.find(fileid);
    expect(record?.sha256).toBe(createHash('sha256').update(whole).digest('hex'));

    // One completed upload per URL: a second block or block list is refused, the bytes stay.
    const extra = { id: Buffer.from('block-extra').toString('base64'), data: Buffer.from('tail') };
    const late = await put(`${sasUri}&comp=block&blockid=${encodeURIComponent(extra.id)}`, extra.data);
    expect(late.status).toBe(409);
    const relist = `<BlockList><Committed>${blocks[3]!.id}</Committed><Latest>${blocks[0]!.id}</Latest></BlockList>`;
    expect((await put(`${sasUri}&comp=blocklist`, relist)).status).toBe(409);
    expect((await stored(fileid)).equals(whole)).toBe(true);
    await printable(fileid);
  });

  it('refuses a block list naming a block never uploaded, and a bad block id', async () => {
    const { sasUri } = await prepare();
    const missing = await put(`${sasUri}&comp=blocklist`, '<BlockList><Latest>QUJD</Latest></BlockList>');
    expect(missing.status).toBe(400);
    expect(missing.text).toMatch(/blocklist: block QUJD \(Latest\) was not uploaded/);
    const badId = await put(`${sasUri}&comp=block&blockid=${encodeURIComponent('not base64!')}`, 'x');
    expect(badId.status).toBe(400);
    expect(badId.text).toMatch(/blockid: must be base64/);
  });
});

describe('one completed upload per URL; a printed file is immutable', () => {
  const blob = { 'x-ms-blob-type': 'BlockBlob', 'content-type': 'application/pdf' };

  it('refuses a second whole-blob PUT after a completed one with 409, keeping the first bytes', async () => {
    const { fileid, sasUri } = await prepare();
    const first = randomBytes(1000);
    expect((await put(sasUri, first, blob)).status).toBe(201);
    const second = await put(sasUri, randomBytes(1000), blob);
    expect(second.status).toBe(409);
    expect(second.headers['x-ms-error-code']).toBe('BlobImmutable');
    expect(second.text).toContain(`file ${fileid} was already uploaded; ask PrepareUpload for a new URL`);
    expect((await stored(fileid)).equals(first)).toBe(true);
  });

  it('answers a second multipart PUT after a completed one with 409 at once (a client retrying an upload whose answer it lost)', async () => {
    const { fileid, sasUri } = await prepare();
    const content = randomBytes(96 * 1024);
    const form = () => {
      const f = new FormData();
      f.append('file', new Blob([content]), 'doc.txt');
      return f;
    };
    expect((await put(sasUri, form(), { 'x-ms-blob-type': 'BlockBlob' })).status).toBe(201);
    const again = await put(sasUri, form(), { 'x-ms-blob-type': 'BlockBlob' });
    expect(again.status).toBe(409);
    expect(again.headers['x-ms-error-code']).toBe('BlobImmutable');
    expect((await stored(fileid)).equals(content)).toBe(true);
  });

  it('gives up a multipart upload whose connection is cut half-way: no temporary file left, the URL takes the upload again', async () => {
    const { fileid, sasUri } = await prepare();
    const url = new URL(sasUri);
    const boundary = 'cut-boundary';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="doc.pdf"\r\nContent-Type: application/pdf\r\n\r\n`;
    const content = randomBytes(200_000);
    const length = Buffer.byteLength(head) + content.length + Buffer.byteLength(`\r\n--${boundary}--\r\n`);
    const socket = connect(Number(url.port), url.hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `PUT ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nx-ms-blob-type: BlockBlob\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${length}\r\n\r\n${head}`,
    );
    socket.write(content.subarray(0, 100_000));
    await uploadStarted(fileid);
    socket.destroy();
    await noUploadLeft(fileid);
    expect(h.emulator.app.emulator.store.storedFiles.find(fileid)?.state).toBe('pending');
    const form = new FormData();
    form.append('file', new Blob([content]), 'doc.pdf');
    expect((await put(sasUri, form, { 'x-ms-blob-type': 'BlockBlob' })).status).toBe(201);
    expect((await stored(fileid)).equals(content)).toBe(true);
  });

  it('a PUT that finishes after Print cannot replace the job’s bytes or make the fileid printable again', async () => {
    const { fileid, sasUri } = await prepare();
    const slow = new Readable({ read() {} });
    const late = put(sasUri, slow, blob);
    slow.push(randomBytes(1000));
    await uploadStarted(fileid);
    const original = pdfBytes(2000);
    expect((await put(sasUri, original, blob)).status).toBe(201);
    // printanddelete: the fileid must never print again (without it, printing it again is allowed).
    const print = await call(h, '/sfapi/Print/', {
      method: 'POST',
      body: { fileid, type: 'pdf', printerid: h.printerId, printanddelete: true },
    });
    expect(print.status).toBe(200);
    slow.push(randomBytes(1000));
    slow.push(null);
    const answer = await late;
    expect(answer.status).toBe(409);
    const job = h.emulator.app.emulator.store.jobs.findById(print.body.jobid)!;
    expect(
      createHash('sha256')
        .update(await readFile(job.file.path))
        .digest('hex'),
    ).toBe(createHash('sha256').update(original).digest('hex'));
    const again = await call(h, '/sfapi/Print/', {
      method: 'POST',
      body: { fileid, type: 'pdf', printerid: h.printerId, printanddelete: true },
    });
    expect(again.status).toBe(400);
    expect(JSON.stringify(again.body)).toContain(
      'was printed with printanddelete and is deleted; upload the document again',
    );
  });

  it('two Prints with printanddelete racing for one fileid make one job; the others are told the file was printed', async () => {
    const { fileid, sasUri } = await prepare();
    expect((await put(sasUri, pdfBytes(500), blob)).status).toBe(201);
    const body = { fileid, type: 'pdf', printerid: h.printerId, printanddelete: true };
    const answers = await Promise.all(
      [1, 2, 3].map(() => call(h, '/sfapi/Print/', { method: 'POST', body })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400, 400]);
  });
});

describe('logging', () => {
  it('never writes the signed query string to the log', async () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'trace',
      destination: { write: (line: string) => lines.push(line) },
    });
    const logged = await startSfapiHarness(undefined, logger);
    try {
      const { body } = await call(logged, '/sfapi/PrepareUpload/');
      const url = new URL(body.sasUri);
      const headers = { 'x-ms-blob-type': 'BlockBlob' };
      expect((await put(url.href, 'document', headers)).status).toBe(201);
      url.searchParams.set('sig', 'tampered-signature-value');
      expect((await put(url.href, 'document', headers)).status).toBe(403);
      expect(lines.length).toBeGreaterThan(0);
      const sig = new URL(body.sasUri).searchParams.get('sig') ?? '';
      for (const line of lines) {
        expect(line).not.toContain(sig);
        expect(line).not.toContain('tampered-signature-value');
      }
    } finally {
      await logged.close();
    }
  });
});

describe('signatures', () => {
  it('refuses a tampered signature or a URL of another file with 403', async () => {
    const { sasUri } = await prepare();
    const other = await prepare();
    const tampered = new URL(sasUri);
    const sig = tampered.searchParams.get('sig') ?? '';
    tampered.searchParams.set('sig', `${sig.slice(0, -2)}${sig.endsWith('AA') ? 'BB' : 'AA'}`);
    const headers = { 'x-ms-blob-type': 'BlockBlob' };
    expect((await put(tampered.href, 'x', headers)).status).toBe(403);
    const swapped = new URL(sasUri);
    swapped.pathname = `/storage/uploads/${other.fileid}`;
    expect((await put(swapped.href, 'x', headers)).status).toBe(403);
    const later = new URL(sasUri);
    later.searchParams.set('se', new Date(clock.now() + 7200_000).toISOString());
    expect((await put(later.href, 'x', headers)).status).toBe(403);
    const unsigned = new URL(sasUri);
    unsigned.search = '';
    expect((await put(unsigned.href, 'x', headers)).status).toBe(403);
  });

  it('refuses an expired URL with 403 after one hour', async () => {
    const { sasUri } = await prepare();
    clock.advance(3600_000);
    const answer = await put(sasUri, 'late', { 'x-ms-blob-type': 'BlockBlob' });
    expect(answer.status).toBe(403);
    expect(answer.text).toMatch(/expired/);
  });
});
