/**
 * The OpenAPI document as an app developer uses it: types generated from /openapi.json with
 * openapi-typescript type-check a whole print flow written with openapi-fetch (token,
 * PrepareUpload, upload, Print with options, Status), the flow then runs against the emulator,
 * and a Print body the document calls wrong (copies as a word, an unknown type, no printerid)
 * fails to type-check. The generated files live in a private temp directory under
 * node_modules/.cache, so they resolve openapi-fetch like project code does.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO } from '../../src/config/demo-seed.js';
import { type SfapiHarness, startSfapiHarness } from './emulator-sfapi-harness.js';

let h: SfapiHarness;
let dir: string;

/** The flow an app developer writes: every call typed by the generated `paths`. */
const FLOW = `
import createClient from 'openapi-fetch';
import type { paths } from './api';

export interface FlowResult { jobid: string; jobstatus: number; jobstatusstring: string }

export async function printFlow(baseUrl: string, basic: string, printerid: string, pdf: Blob): Promise<FlowResult> {
  const client = createClient<paths>({ baseUrl });
  const token = await client.POST('/oauth/access_token', {
    headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: { grant_type: 'password', username: ${JSON.stringify(DEMO.user.email)}, password: ${JSON.stringify(DEMO.user.password)}, scope: 'printing' },
    bodySerializer: (body) => new URLSearchParams(body as Record<string, string>).toString(),
  });
  if (!token.data) throw new Error('token: ' + token.response.status);
  const auth = { authorization: 'Bearer ' + token.data.access_token };
  const prepared = await client.GET('/sfapi/PrepareUpload/', { headers: auth });
  if (!prepared.data) throw new Error('PrepareUpload: ' + prepared.response.status);
  const upload = await fetch(prepared.data.sasUri, { method: 'PUT', headers: { 'x-ms-blob-type': 'BlockBlob' }, body: pdf });
  if (upload.status !== 201) throw new Error('upload: ' + upload.status);
  const printed = await client.POST('/sfapi/Print/', {
    headers: auth,
    body: { fileid: prepared.data.fileid, type: 'pdf', printerid, copies: 2, duplexmode: 2, orientation: 1, paperid: 9, pageranges: '1' },
  });
  if (!printed.data) throw new Error('Print: ' + printed.response.status);
  const status = await client.GET('/sfapi/Status/', { headers: auth, params: { query: { id: printed.data.jobid } } });
  if (!status.data) throw new Error('Status: ' + status.response.status);
  return { jobid: printed.data.jobid, jobstatus: status.data.jobstatus, jobstatusstring: status.data.jobstatusstring };
}
`;

/** Calls the document calls wrong; each line must fail to type-check. */
const WRONG = `
import createClient from 'openapi-fetch';
import type { paths } from './api';
const client = createClient<paths>({ baseUrl: 'http://x' });
void client.POST('/sfapi/Print/', { body: { fileid: 'f', type: 'pdf', printerid: 'p', copies: 'two' } });
void client.POST('/sfapi/Print/', { body: { fileid: 'f', type: 'exe', printerid: 'p' } });
void client.POST('/sfapi/Print/', { body: { fileid: 'f', type: 'pdf' } });
void client.GET('/sfapi/Status/', { params: { query: {} } });
`;

beforeAll(async () => {
  h = await startSfapiHarness();
  const cache = join(process.cwd(), 'node_modules', '.cache');
  await mkdir(cache, { recursive: true, mode: 0o700 });
  dir = await mkdtemp(join(cache, 'openapi-client-'));
  const res = await request(`${h.base}/openapi.json`);
  const types = astToString(await openapiTS((await res.body.json()) as never));
  await writeFile(join(dir, 'api.d.ts'), types, { mode: 0o600 });
  await writeFile(join(dir, 'flow.ts'), FLOW, { mode: 0o600 });
  await writeFile(join(dir, 'wrong.ts'), WRONG, { mode: 0o600 });
}, 60_000);
afterAll(async () => {
  await h?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** TypeScript's diagnostics for one file, as `line: message`. */
function typeErrors(file: string): string[] {
  const program = ts.createProgram([join(dir, file)], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
    skipLibCheck: true,
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
    return `${line}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
  });
}

describe('a typed client generated from /openapi.json', () => {
  it('type-checks a whole print flow: token, PrepareUpload, Print with options, Status', () => {
    expect(typeErrors('flow.ts')).toEqual([]);
  });

  it('runs that flow against the emulator', async () => {
    const { printFlow } = (await import(pathToFileURL(join(dir, 'flow.ts')).href)) as {
      printFlow(
        base: string,
        basic: string,
        printer: string,
        pdf: Blob,
      ): Promise<{ jobid: string; jobstatus: number }>;
    };
    const basic = `Basic ${Buffer.from(`${DEMO.client.id}:${DEMO.client.secret}`).toString('base64')}`;
    const pdf = new Blob(['%PDF-1.4\n%%EOF\n']);
    const result = await printFlow(h.base, basic, h.printerId, pdf);
    expect(result.jobid).toMatch(/\S/);
    expect([0, 129, 1246]).toContain(result.jobstatus);
  });

  it('refuses Print and Status calls the document calls wrong', () => {
    const errors = typeErrors('wrong.ts');
    for (const line of [5, 6, 7, 8])
      expect(
        errors.some((e) => e.startsWith(`${line}:`)),
        `line ${line}`,
      ).toBe(true);
  });
});
