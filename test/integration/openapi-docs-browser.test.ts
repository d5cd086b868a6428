/**
 * The /docs page as an app developer uses it in headless Chromium: authorize with a bearer
 * token, open Print, "Try it out" with a JSON body naming an uploaded file, Execute, and the
 * page shows 200 with the jobid, which Status then knows. Under CI=true a missing chromium
 * fails the run.
 */
import type { Browser } from 'playwright-core';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.js';
import { peersAvailable } from '../support/peers.js';
import { call, type SfapiHarness, startSfapiHarness } from './emulator-sfapi-harness.js';

const haveChromium = peersAvailable('chromium');

describe.skipIf(!haveChromium)('/docs in headless Chromium', () => {
  let h: SfapiHarness;
  let browser: Browser;

  beforeAll(async () => {
    h = await startSfapiHarness();
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('sends a Print with Try it out and shows the jobid', async () => {
    const prepared = await call(h, '/sfapi/PrepareUpload/');
    const upload = await request(prepared.body.sasUri, {
      method: 'PUT',
      headers: { 'x-ms-blob-type': 'BlockBlob' },
      body: '%PDF-1.4\n%%EOF\n',
    });
    await upload.body.dump();
    expect(upload.statusCode).toBe(201);

    const page = await browser.newPage();
    await page.goto(`${h.base}/docs/`);
    await page.locator('button.authorize').first().click();
    const bearer = page.locator('.auth-container').filter({ hasText: 'bearer' });
    await bearer.locator('input').fill(h.token);
    await bearer.locator('button.authorize').click();
    await page.locator('button.btn-done').first().click();

    const print = page.locator('#operations-sfapi-Print');
    await print.locator('.opblock-summary').click();
    await print.locator('button.try-out__btn').click();
    const body = {
      fileid: prepared.body.fileid,
      type: 'pdf',
      printerid: h.printerId,
      copies: 2,
      duplexmode: 2,
    };
    await print.locator('textarea.body-param__text').fill(JSON.stringify(body));
    await print.locator('button.execute').click();
    const status = print.locator('.live-responses-table tr.response td.response-col_status').first();
    await expect.poll(async () => (await status.textContent())?.trim(), { timeout: 15_000 }).toBe('200');
    const answer = await print
      .locator('.live-responses-table tr.response td.response-col_description pre')
      .first()
      .textContent();
    const jobid = (JSON.parse(answer ?? '{}') as { jobid?: string }).jobid;
    expect(jobid).toMatch(/\S/);

    const known = await call(h, `/sfapi/Status/?id=${encodeURIComponent(jobid!)}`);
    expect(known.body.jobstatus).not.toBe(2);
    await page.close();
  }, 60_000);
});
