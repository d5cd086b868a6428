/**
 * The recipes of docs/emulator.md ("The sandbox: Recipes"), each run verbatim with bash and
 * curl, and what each says the app then sees, checked with the project's own app client:
 * retry on 429 (a real emulator), refresh after expiry (a real emulator), a jammed printer
 * (emulator, agent and ippeveprinter: the job waits, then prints once the jam is cleared).
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SfapiClient } from '../../src/client/sfapi-client.js';
import { isRetryable } from '../../src/lib/errors.js';
import { demoSession } from '../support/demo-session.js';
import { type RunningIppEvePrinter, startIppEvePrinter } from '../support/ippeveprinter.js';
import { peersAvailable } from '../support/peers.js';
import { startWholeLoop, type WholeLoop, waitForEnd } from '../support/whole-loop.js';
import {
  DEMO,
  demoBasic,
  type Harness,
  passwordToken,
  startHarness,
  tokenRequest,
} from './emulator-harness.js';
import { connectorWithPrinter } from './emulator-job-driver.js';

const run = promisify(execFile);
const sample = join(import.meta.dirname, '..', '..', 'docs', 'sample.pdf');

/** The shell block of docs/emulator.md after `<!-- name -->`. */
async function recipe(name: string): Promise<string> {
  const doc = await readFile(join(import.meta.dirname, '..', '..', 'docs', 'emulator.md'), 'utf8');
  const match = new RegExp(`<!-- ${name} -->\\s*\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(doc);
  if (!match) throw new Error(`docs/emulator.md has no ${name} block`);
  return match[1]!;
}

/** Runs a recipe with bash against `url`; its stdout. */
async function runRecipe(name: string, url: string, env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await run('bash', ['-euc', await recipe(name)], {
    env: { ...process.env, E: url, J: 'content-type: application/json', ...env },
  });
  return stdout;
}

describe.runIf(peersAvailable('curl'))('recipes against the emulator', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  it("test your app's retry on 429", async () => {
    const admin = await passwordToken(h.baseUrl, 'printing printing.connectors');
    const { printerId: printerid } = await connectorWithPrinter(h, admin, 'RECIPE-1', {
      printer: 'Recipe printer',
    });
    expect(JSON.parse(await runRecipe('recipe-429', h.baseUrl))[0].id).toBe('f1');
    const { http } = await demoSession(h.baseUrl);
    try {
      const sfapi = new SfapiClient(http);
      const { fileid, sasUri } = await sfapi.prepareUpload();
      await sfapi.upload(sasUri, sample, () => {});
      const refused = await sfapi.print({ fileid, type: 'pdf', printerid }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(isRetryable(refused) && refused.retryAfterMs).toBe(2000);
      const { jobid } = await sfapi.print({ fileid, type: 'pdf', printerid });
      expect(jobid).toMatch(/\S/);
    } finally {
      await http.close();
    }
    const raw = await request(`${h.baseUrl}/_emulator/faults`);
    expect(await raw.body.json()).toEqual([]);
  });

  it('refresh after expiry', async () => {
    const granted = await tokenRequest(
      h.baseUrl,
      { grant_type: 'password', username: DEMO.user.email, password: DEMO.user.password, scope: 'printing' },
      demoBasic(),
    );
    const { access_token, refresh_token } = granted.body as { access_token: string; refresh_token: string };
    await runRecipe('recipe-expiry', h.baseUrl);
    const getPrinter = (token: string) =>
      request(`${h.baseUrl}/sfapi/GetPrinter`, { headers: { authorization: `Bearer ${token}` } });
    const expired = await getPrinter(access_token);
    expect(expired.statusCode).toBe(401);
    expect(((await expired.body.json()) as { error: string }).error).toBe('invalid_token');
    const refreshed = await tokenRequest(
      h.baseUrl,
      { grant_type: 'refresh_token', refresh_token },
      demoBasic(),
    );
    expect(refreshed.status).toBe(200);
    const again = await getPrinter(refreshed.body['access_token'] as string);
    expect(again.statusCode).toBe(200);
    await again.body.dump();
  });
});

describe.runIf(peersAvailable('curl', 'ippeveprinter'))('recipe with the real agent and printer', () => {
  const PRINTER = 'Recipe Printer';
  let printer: RunningIppEvePrinter;
  let loop: WholeLoop;
  beforeAll(async () => {
    printer = await startIppEvePrinter({ name: 'recipe-test' });
    loop = await startWholeLoop({ printers: [{ name: PRINTER, uri: printer.uri }], level: 'info' });
  }, 60_000);
  afterAll(async () => {
    await loop?.close();
    await printer?.stop();
  });

  it('what your app shows when a printer jams', async () => {
    const app = await loop.app();
    try {
      const printerId = (await app.sfapi.getPrinters()).find((p) => p.name === PRINTER)!.id;
      await runRecipe('recipe-jam', loop.url, { PRINTER_ID: printerId });
      const { fileid, sasUri } = await app.sfapi.prepareUpload();
      await app.sfapi.upload(sasUri, sample, () => {});
      const { jobid } = await app.sfapi.print({ fileid, type: 'pdf', printerid: printerId });
      expect(await app.sfapi.status(jobid)).toMatchObject({
        jobstatus: 1246,
        jobstatusstring: 'WAITING|printer jammed (fault rule f1)|',
      });
      await runRecipe('recipe-jam-clear', loop.url);
      expect((await waitForEnd(app.sfapi, jobid)).jobstatus).toBe(0);
    } finally {
      await app.close();
    }
  }, 90_000);
});
