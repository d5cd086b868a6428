import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkDocument, DocumentRefusedError } from '../../../../src/agent/jobs/document-check.js';
import { JobRunner } from '../../../../src/agent/jobs/job-runner.js';
import { systemClock } from '../../../../src/lib/clock.js';
import type { JobOffer } from '../../../../src/protocol/connector-channel.js';
import type { PageRange } from '../../../../src/protocol/print-ticket.js';
import { jobOffer } from '../../../support/job-offers.js';
import { eachTurnUntil, JobStepRig, RecordingPrinter } from '../../../support/job-step-rig.js';
import { writePdf } from '../../../support/pdf.js';

const NOISE = Buffer.from(Array.from({ length: 2048 }, (_, i) => (i * 151 + 7) % 251));
const signal = new AbortController().signal;
const aborted = AbortSignal.abort();

/** The files this process holds open (Linux: the links of /proc/self/fd). */
function openFiles(): string[] {
  const fds = '/proc/self/fd';
  return readdirSync(fds).flatMap((fd) => {
    try {
      return [readlinkSync(join(fds, fd))];
    } catch {
      return []; // closed between the listing and the read (the listing's own handle)
    }
  });
}

function offerWith(id: string, pageRanges?: PageRange[], contentType = 'application/pdf'): JobOffer {
  const offer = jobOffer(id, { content_type: contentType });
  if (pageRanges) offer.ticket = { copies: 1, pageRanges };
  return offer;
}

describe('checkDocument', () => {
  let dir: string;
  let twoPages: string;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'doc-check-'));
    twoPages = await writePdf(join(dir, 'two.pdf'), 2);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses bytes that are not a PDF, from the spool file and from memory alike', async () => {
    const path = join(dir, 'noise.pdf');
    writeFileSync(path, NOISE);
    const rule =
      'the document is not a PDF (application/pdf): it does not start with %PDF- (in its first 1024 bytes)';
    await expect(checkDocument(offerWith('a'), path, undefined, signal)).rejects.toThrow(rule);
    await expect(checkDocument(offerWith('a'), path, NOISE, signal)).rejects.toBeInstanceOf(
      DocumentRefusedError,
    );
  });

  it('refuses page ranges past the end of the PDF, naming pageranges and the page count', async () => {
    const rule = 'pageranges 5-9 selects no page of the document, which has 2 pages';
    const ranges = [{ from: 5, to: 9 }];
    await expect(checkDocument(offerWith('a', ranges), twoPages, undefined, signal)).rejects.toThrow(rule);
    const held = readFileSync(twoPages);
    await expect(checkDocument(offerWith('a', ranges), twoPages, held, signal)).rejects.toThrow(rule);
  });

  it('lets a PDF print when its ranges select at least one page, or when it has none', async () => {
    await expect(
      checkDocument(offerWith('a', [{ from: 2, to: 9 }]), twoPages, undefined, signal),
    ).resolves.toBeUndefined();
    await expect(checkDocument(offerWith('a'), twoPages, undefined, signal)).resolves.toBeUndefined();
  });

  it('refuses with the typed error whose code is document_refused', async () => {
    const path = join(dir, 'noise.pdf');
    writeFileSync(path, NOISE);
    const refusal = await checkDocument(offerWith('a'), path, undefined, signal).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(DocumentRefusedError);
    expect(refusal).toMatchObject({ code: 'document_refused' });
  });

  it('closes the spool file it read the signature from', async () => {
    await checkDocument(offerWith('a'), twoPages, undefined, signal);
    expect(openFiles()).not.toContain(twoPages);
  });

  it('counts the pages of a document held in memory from memory, never from the spool path', async () => {
    const held = readFileSync(twoPages);
    const nowhere = join(dir, 'never-written.pdf');
    await expect(
      checkDocument(offerWith('a', [{ from: 2, to: 9 }]), nowhere, held, signal),
    ).resolves.toBeUndefined();
    await expect(checkDocument(offerWith('a', [{ from: 5, to: 9 }]), nowhere, held, signal)).rejects.toThrow(
      'pageranges 5-9 selects no page of the document, which has 2 pages',
    );
  });

  it('stops reading the spool file for the page count when the job is aborted', async () => {
    await expect(
      checkDocument(offerWith('a', [{ from: 1, to: 1 }]), twoPages, undefined, aborted),
    ).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('reads no further than the signature without page ranges, or with an empty list of them', async () => {
    // An aborted signal fails any page count; without ranges to check there is none to abort.
    await expect(checkDocument(offerWith('a'), twoPages, undefined, aborted)).resolves.toBeUndefined();
    await expect(checkDocument(offerWith('a', []), twoPages, undefined, aborted)).resolves.toBeUndefined();
  });

  it('leaves types without a signature and uncountable PDFs to the printer', async () => {
    const path = join(dir, 'note.txt');
    writeFileSync(path, NOISE);
    await expect(
      checkDocument(offerWith('a', undefined, 'text/plain'), path, undefined, signal),
    ).resolves.toBeUndefined();
    const odd = join(dir, 'odd.pdf');
    writeFileSync(odd, '%PDF-1.4\nno page objects the counter can find\n%%EOF\n');
    await expect(
      checkDocument(offerWith('a', [{ from: 5, to: 9 }]), odd, undefined, signal),
    ).resolves.toBeUndefined();
  });
});

describe('a job whose document the check refuses', () => {
  let rig: JobStepRig;
  afterEach(() => rig.close());

  it('fails at once with the rule as its reason, is downloaded once and never reaches the printer', async () => {
    rig = new JobStepRig({
      clock: systemClock,
      jobs: { retry_initial_ms: 10, retry_max_ms: 40, download_attempts: 5, status_poll_ms: 50 },
    });
    const printer = new RecordingPrinter();
    let downloads = 0;
    const runner = new JobRunner(
      rig.deps({
        download: async (offer, target, s) => {
          downloads++;
          writeFileSync(target, NOISE);
          await checkDocument(offer, target, undefined, s);
        },
      }),
    );
    const loop = rig.loop(runner, () => printer);
    loop.start();
    loop.offer(offerWith('noise'));
    await eachTurnUntil(() => rig.events.some((event) => event.kind === 'failed'));
    await new Promise((r) => setTimeout(r, 10));
    await loop.stop();
    const reason =
      'the document is not a PDF (application/pdf): it does not start with %PDF- (in its first 1024 bytes)';
    expect(rig.ledger.get('noise')).toMatchObject({ state: 'failed' });
    const failed = rig.outbox
      .pendingFor('noise')
      .map((e) => e.event)
      .find((e) => e.kind === 'failed');
    expect(failed).toMatchObject({ kind: 'failed', error_code: 3011, message: reason });
    expect(downloads).toBe(1);
    expect(printer.submitted).toEqual([]);
  });
});
