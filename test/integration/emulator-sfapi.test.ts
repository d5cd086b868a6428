import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { FILEEXT } from '../../src/protocol/sfapi-configuration.js';
import { call, type SfapiHarness, startSfapiHarness } from './emulator-sfapi-harness.js';

const SPEC_FILEEXT =
  'bmp;csv;doc;docm;docx;dot;dotm;dotx;eml;gif;htm;html;jpeg;jpg;log;mht;mhtml;odf;odg;odm;odp;odt;otg;oth;otp;ott;pdf;png;pot;potm;potx;pps;ppsx;ppt;pptm;pptx;rtf;scp;sda;sdd;sds;sdw;sgl;smf;sti;stw;sxd;sxg;sxi;sxm;sxw;tif;tiff;tpf;txt;vor;wtx;xls;xlsb;xlsm;xlsx;xlt;xltm;xltx;xml;xps;';

let h: SfapiHarness;

beforeAll(async () => {
  h = await startSfapiHarness();
});
afterAll(async () => {
  await h?.close();
});

async function uploadRaw(content: string): Promise<string> {
  const prepared = await call(h, '/sfapi/PrepareUpload/');
  const put = await request(prepared.body.sasUri, {
    method: 'PUT',
    headers: { 'x-ms-blob-type': 'BlockBlob', 'content-type': 'application/octet-stream' },
    body: content,
  });
  await put.body.text();
  expect(put.statusCode).toBe(201);
  return prepared.body.fileid;
}

describe('GetConfiguration', () => {
  it('lists exactly the spec extensions with a trailing semicolon', async () => {
    const { status, body } = await call(h, '/sfapi/GetConfiguration/');
    expect(status).toBe(200);
    expect(body.System.FILEEXT).toBe(SPEC_FILEEXT);
    expect(FILEEXT).toBe(SPEC_FILEEXT);
    expect(Object.keys(body).sort()).toEqual(['Drivers', 'Folders', 'SFForms', 'Shell', 'System']);
    expect(typeof body.System.HOST).toBe('string');
    expect(typeof body.SFForms.$Count).toBe('number');
  });

  it('needs a bearer token', async () => {
    const response = await request(`${h.base}/sfapi/GetConfiguration/`);
    await response.body.text();
    expect(response.statusCode).toBe(401);
  });

  it.each(['/sfapi/GetConfiguration', '/sfapi/getconfiguration/', '/SFAPI/GETCONFIGURATION'])(
    'answers on the lenient path %s',
    async (path) => {
      const { status, body } = await call(h, path);
      expect(status).toBe(200);
      expect(body.System.FILEEXT).toBe(SPEC_FILEEXT);
    },
  );
});

describe('GetPrinter and GetPrinterProperties', () => {
  it('lists the printers of the caller organization only', async () => {
    const mine = await call(h, '/sfapi/GetPrinter');
    expect(mine.body).toContainEqual({ id: h.printerId, name: h.printerName, location: '' });
    const other = await call(h, '/sfapi/GetPrinter', { token: h.otherToken });
    expect(other.status).toBe(200);
    expect(other.body.map((p: { id: string }) => p.id)).not.toContain(h.printerId);
  });

  it('finds properties by id, by name and without either', async () => {
    const byId = await call(h, `/sfapi/GetPrinterProperties/?id=${h.printerId}`);
    expect(byId.status).toBe(200);
    expect(byId.body).toHaveLength(1);
    expect(byId.body[0].Id).toBe(h.printerId);
    const byName = await call(h, `/sfapi/GetPrinterProperties/?printer=${encodeURIComponent(h.printerName)}`);
    expect(byName.body[0].Id).toBe(h.printerId);
    const all = await call(h, '/sfapi/getprinterproperties');
    expect(all.body.map((p: { Id: string }) => p.Id)).toContain(h.printerId);
  });

  it('refuses id and printer together, naming both', async () => {
    const { status, body } = await call(h, `/sfapi/GetPrinterProperties/?id=${h.printerId}&printer=x`);
    expect(status).toBe(400);
    expect(body.errors.map((e: { field: string }) => e.field)).toEqual(['id', 'printer']);
  });

  it('refuses a query parameter other than id and printer, naming it', async () => {
    const { status, body } = await call(h, '/sfapi/GetPrinterProperties/?name=x&id=' + h.printerId, {
      offContract: true,
    });
    expect(status).toBe(400);
    expect(body.errors.map((e: { field: string }) => e.field)).toEqual(['name']);
  });

  it('spells values one way for every printer: orientations as the spec writes them, duplex as the connector does', async () => {
    const all = await call(h, '/sfapi/GetPrinterProperties/');
    expect(all.body.length).toBeGreaterThan(0);
    for (const p of all.body) {
      expect(p.OrientationsSupported.every((o: string) => ['portrait', 'landscape'].includes(o))).toBe(true);
      expect(['Simplex', 'Vertical', 'Horizontal']).toContain(p.Default.Duplex);
      expect([null, 'portrait', 'landscape']).toContain(p.Default.Orientation);
    }
  });

  it('answers 404 naming the field for an unknown printer', async () => {
    const unknownId = await call(h, '/sfapi/GetPrinterProperties/?id=00000000-0000-4000-8000-000000000000');
    expect(unknownId).toMatchObject({ status: 404, body: { field: 'id' } });
    const unknownName = await call(h, '/sfapi/GetPrinterProperties/?printer=nope');
    expect(unknownName).toMatchObject({ status: 404, body: { field: 'printer' } });
    const otherOrg = await call(h, `/sfapi/GetPrinterProperties/?id=${h.printerId}`, { token: h.otherToken });
    expect(otherOrg.status).toBe(404);
    const badId = await call(h, '/sfapi/GetPrinterProperties/?id=12');
    expect(badId).toMatchObject({ status: 400, body: { field: 'id', rule: 'must be a UUID' } });
  });
});

describe('Print with an uploaded file', () => {
  it('creates a job and reports its status', async () => {
    const fileid = await uploadRaw('%PDF-1.4 test');
    const print = await call(h, '/sfapi/Print/', {
      method: 'POST',
      body: { fileid, type: 'pdf', printerid: h.printerId, copies: '2', PageRanges: '1-2' },
      // Lenient input on purpose: copies as a string, the spec's letter case of pageranges.
      offContract: true,
    });
    expect(print.status).toBe(200);
    expect(typeof print.body.jobid).toBe('string');
    const status = await call(h, `/sfapi/Status/?id=${encodeURIComponent(print.body.jobid)}`);
    expect(status.status).toBe(200);
    expect([0, 129, 1246]).toContain(status.body.jobstatus);
    expect(status.body.jobstatusstring).toMatch(/^([A-Z_]+\|)*$/);
  });

  it('names the fields it ignored in X-PrintRelay-Ignored-Fields, and refuses them with Prefer: handling=strict', async () => {
    const fileid = await uploadRaw('%PDF-1.4 ignored');
    const body = {
      fileid,
      type: 'pdf',
      printerid: h.printerId,
      paper: 'A4',
      bogusfield: 1,
      properties: { pages: '1' },
    };
    const lenient = await call(h, '/sfapi/Print/', { method: 'POST', body, offContract: true });
    expect(lenient.status).toBe(200);
    expect(lenient.headers['x-printrelay-ignored-fields']).toBe('paper, bogusfield, properties.pages');
    const strict = await call(h, '/sfapi/Print/', {
      method: 'POST',
      body,
      headers: { prefer: 'handling=strict' },
    });
    expect(strict.status).toBe(400);
    expect(strict.headers['preference-applied']).toBe('handling=strict');
    expect(strict.body.errors.map((e: { field: string }) => e.field)).toEqual([
      'paper',
      'bogusfield',
      'properties.pages',
    ]);
    const clean = await call(h, '/sfapi/Print/', {
      method: 'POST',
      body: { fileid, type: 'pdf', printerid: h.printerId, copies: 1 },
      headers: { prefer: 'handling=strict' },
    });
    expect(clean.status).toBe(200);
    expect(clean.headers['x-printrelay-ignored-fields']).toBeUndefined();
  });

  it('accepts options inside properties and lenient key case', async () => {
    const fileid = await uploadRaw('hello');
    const print = await call(h, '/sfapi/print', {
      method: 'POST',
      body: {
        FileId: fileid,
        Type: 'TXT',
        PrinterID: h.printerId,
        properties: { duplex: 'true', copies: 3 },
      },
      offContract: true,
    });
    expect(print.status).toBe(200);
  });

  it('prints a fileid again until a Print with printanddelete takes it; refuses a file of another organization and a pending one', async () => {
    const fileid = await uploadRaw('once');
    const body = { fileid, type: 'txt', printerid: h.printerId };
    const first = await call(h, '/sfapi/Print/', { method: 'POST', body });
    expect(first.status).toBe(200);
    const second = await call(h, '/sfapi/Print/', { method: 'POST', body });
    expect(second.status).toBe(200);
    expect(second.body.jobid).not.toBe(first.body.jobid);
    const last = await call(h, '/sfapi/Print/', { method: 'POST', body: { ...body, printanddelete: true } });
    expect(last.status).toBe(200);
    const again = await call(h, '/sfapi/Print/', { method: 'POST', body });
    expect(again).toMatchObject({
      status: 400,
      body: {
        field: 'fileid',
        rule: 'was printed with printanddelete and is deleted; upload the document again',
      },
    });
    const foreign = await call(h, '/sfapi/Print/', {
      method: 'POST',
      body: { ...body, fileid: await uploadRaw('x') },
      token: h.otherToken,
    });
    expect(foreign.status).toBe(400);
    expect(['fileid', 'printerid']).toContain(foreign.body.field);
    const pending = (await call(h, '/sfapi/PrepareUpload/')).body.fileid;
    const notUploaded = await call(h, '/sfapi/Print/', {
      method: 'POST',
      body: { ...body, fileid: pending },
    });
    expect(notUploaded).toMatchObject({
      status: 400,
      body: { field: 'fileid', rule: 'must be uploaded to the sasUri before Print' },
    });
  });

  it('names every broken field in a 400', async () => {
    const { status, body } = await call(h, '/sfapi/Print/', {
      method: 'POST',
      body: {
        type: 'exe',
        printerid: 'nope',
        copies: 0,
        duplexmode: 7,
        orientation: 3,
        paperid: 4242,
        pageRanges: '3;1',
        locale: '!',
      },
    });
    expect(status).toBe(400);
    expect(body.errors.map((e: { field: string }) => e.field)).toEqual([
      'fileid',
      'type',
      'printerid',
      'copies',
      'duplexmode',
      'orientation',
      'paperid',
      'pageranges',
      'locale',
    ]);
    for (const e of body.errors) expect(e.rule).toEqual(expect.any(String));
  });

  it('refuses an unknown printer naming printerid', async () => {
    const fileid = await uploadRaw('x');
    const { status, body } = await call(h, '/sfapi/Print/', {
      method: 'POST',
      body: { fileid, type: 'pdf', printerid: '00000000-0000-4000-8000-000000000000' },
    });
    expect(status).toBe(400);
    expect(body.field).toBe('printerid');
  });
});

describe('Print of a document that is not of its type', () => {
  it('answers 400 naming type and the rule for bytes that are not a PDF; the file still prints as what it is', async () => {
    const fileid = await uploadRaw('\u0013\u0099B random bytes, not a PDF');
    const { status, body } = await call(h, '/sfapi/Print/', {
      method: 'POST',
      body: { fileid, type: 'pdf', printerid: h.printerId },
    });
    expect(status).toBe(400);
    expect(body.errors).toEqual([
      expect.objectContaining({
        field: 'type',
        rule: 'the document is not a PDF (application/pdf): it does not start with %PDF- (in its first 1024 bytes); send the type the document is',
      }),
    ]);
    expect(body.jobid).toBeUndefined();
    // The file stays printable as what it is.
    const asText = await call(h, '/sfapi/Print/', {
      method: 'POST',
      body: { fileid, type: 'txt', printerid: h.printerId },
    });
    expect(asText.status).toBe(200);
  });

  it('answers 400 naming type for a png that is a PDF', async () => {
    const fileid = await uploadRaw('%PDF-1.4 a PDF named png');
    const { status, body } = await call(h, '/sfapi/Print/', {
      method: 'POST',
      body: { fileid, type: 'png', printerid: h.printerId },
    });
    expect(status).toBe(400);
    expect(body.field).toBe('type');
    expect(body.rule).toContain('the document is not a PNG image (image/png)');
  });
});

describe('Status', () => {
  it.each(['no-such-job', 'a:b#c d'])('answers jobstatus 2 for the unknown id %s', async (id) => {
    const { status, body } = await call(h, `/sfapi/status?id=${encodeURIComponent(id)}`);
    expect(status).toBe(200);
    expect(body.jobstatus).toBe(2);
  });

  it('needs the id parameter', async () => {
    const { status, body } = await call(h, '/sfapi/Status/');
    expect(status).toBe(400);
    expect(body.field).toBe('id');
  });
});

describe('Print with a fileurl', () => {
  let server: Server;
  let origin: string;
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  // A PDF header, then filler: Print checks that a pdf starts as one (docs/print-api.md).
  const content = Buffer.alloc(256 * 1024, '%PDF-1.7\n slow document ');

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/missing.pdf') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': content.length });
      res.write(content.subarray(0, 1024));
      if (req.url === '/slow.pdf') released.then(() => res.end(content.subarray(1024)));
      else res.end(content.subarray(1024));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    release();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('answers 412 while the fetch runs and prints with the fileid once it is done', async () => {
    const body = { fileUrl: `${origin}/slow.pdf`, type: 'pdf', printerid: h.printerId };
    const first = await call(h, '/sfapi/Print/', { method: 'POST', body });
    expect(first.status).toBe(412);
    expect(first.body.sasUri).toBe('');
    const fileid = first.body.fileid as string;
    const stillRunning = await call(h, '/sfapi/Print/', {
      method: 'POST',
      body: { fileid, type: 'pdf', printerid: h.printerId },
    });
    expect(stillRunning).toMatchObject({ status: 412, body: { fileid, sasUri: '' } });
    release();
    let done = stillRunning;
    while (done.status === 412) {
      done = await call(h, '/sfapi/Print/', {
        method: 'POST',
        body: { fileid, type: 'pdf', printerid: h.printerId },
      });
    }
    expect(done.status).toBe(200);
    expect(typeof done.body.jobid).toBe('string');
  });

  /** Print, repeated with the returned fileid while the answer is 412 (as clients do). */
  async function printFollowing412(body: Record<string, unknown>) {
    let answer = await call(h, '/sfapi/Print/', { method: 'POST', body });
    while (answer.status === 412) {
      const repeat = { fileid: answer.body.fileid, type: body.type, printerid: body.printerid };
      answer = await call(h, '/sfapi/Print/', { method: 'POST', body: repeat });
    }
    return answer;
  }

  it('prints a fetched file and stores it with its sha256', async () => {
    const { status, body } = await printFollowing412({
      fileurl: `${origin}/fast.pdf`,
      type: 'pdf',
      printerid: h.printerId,
      alias: 'fast.pdf',
    });
    expect(status).toBe(200);
    expect(typeof body.jobid).toBe('string');
    const sha256 = createHash('sha256').update(content).digest('hex');
    const { store } = h.emulator.app.emulator;
    const ids = store.db.prepare('SELECT file_id FROM stored_files').all() as { file_id: string }[];
    const stored = ids.map((row) => store.storedFiles.find(row.file_id));
    expect(stored).toContainEqual(
      expect.objectContaining({ sha256, size: content.length, state: 'printed' }),
    );
  });

  it('answers a clear error when the fetch fails', async () => {
    const { status, body } = await printFollowing412({
      fileurl: `${origin}/missing.pdf`,
      type: 'pdf',
      printerid: h.printerId,
    });
    expect(status).toBe(400);
    expect(body.field).toBe('fileurl');
    expect(body.message).toMatch(/HTTP 404/);
  });
});
