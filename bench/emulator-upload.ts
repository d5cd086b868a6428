/**
 * What an upload costs the emulator: a BENCH_UPLOAD_MB document (default 1024) PUT to a
 * PrepareUpload URL, as multipart (the app's client, SfapiClient.upload) and as a raw BlockBlob
 * body, into an emulator started with --trace-gc. Per GiB uploaded: the emulator's CPU seconds,
 * its full collections and scavenges (from --trace-gc), and the wall time. For an A/B, give
 * BENCH_UPLOAD_ENTRIES=<a>/bin/printrelay.js,<b>/bin/printrelay.js (two checkouts): each round
 * runs every entry once, in turn, so load changes hit both alike (BENCH_ROUNDS, default 3).
 *
 *   npx tsx bench/emulator-upload.ts
 */
import { createReadStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { HttpClient } from '../src/client/http-base.js';
import { fetchPasswordToken } from '../src/client/oauth-client.js';
import { SfapiClient } from '../src/client/sfapi-client.js';
import { DEMO } from '../src/config/demo-seed.js';
import { type GcCounts, countCollections } from './support/gc-trace.js';
import { writeLargeDocument } from './support/large-document.js';
import { benchEntry, cpuSecondsOf, startPart } from './support/processes.js';
import { writePdf } from '../test/support/pdf.js';

const megabytes = Number(process.env.BENCH_UPLOAD_MB ?? 1024);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const entries = (process.env.BENCH_UPLOAD_ENTRIES ?? benchEntry(process.env.BENCH_ENTRY)).split(',');

interface Leg {
  cpuS: number;
  wallS: number;
  full: number;
  scavenges: number;
}

async function uploadOnce(
  entry: string,
  document: string,
  dir: string,
): Promise<{ multipart: Leg; raw: Leg }> {
  const dataDir = mkdtempSync(join(dir, 'emulator-'));
  const { part, match } = await startPart(
    ['emulator', '--listen', '127.0.0.1:0', '--db', ':memory:', '--data-dir', dataDir, '--no-pretty'],
    /listening on (\S+)/,
    60_000,
    ['--trace-gc'],
    { entry },
  );
  const gc = countCollections(part.child.stdout as NodeJS.ReadableStream);
  const base = match.replace(/\/+$/, '');
  const settings = { authUrl: base, clientId: DEMO.client.id, clientSecret: DEMO.client.secret };
  const token = await fetchPasswordToken(settings, DEMO.user.email, DEMO.user.password, 'printing');
  const http = new HttpClient({
    baseUrl: base,
    timeoutMs: 600_000,
    tokens: { token: async () => token.access_token, invalidate: () => {} },
  });
  const sfapi = new SfapiClient(http);
  const leg = async (send: (sasUri: string) => Promise<void>): Promise<Leg> => {
    const { sasUri } = await sfapi.prepareUpload();
    const before: GcCounts = gc.snapshot();
    const cpu = cpuSecondsOf(part.pid);
    const started = performance.now();
    await send(sasUri);
    const wallS = (performance.now() - started) / 1000;
    const after = gc.snapshot();
    return {
      cpuS: cpuSecondsOf(part.pid) - cpu,
      wallS,
      full: after.full - before.full,
      scavenges: after.scavenges - before.scavenges,
    };
  };
  try {
    const multipart = await leg((sasUri) => sfapi.upload(sasUri, document));
    const raw = await leg(async (sasUri) => {
      const res = await request(sasUri, {
        method: 'PUT',
        headers: { 'x-ms-blob-type': 'BlockBlob', 'content-type': 'application/pdf' },
        body: createReadStream(document, { highWaterMark: 1024 * 1024 }),
      });
      await res.body.dump();
      if (res.statusCode !== 201) throw new Error(`raw upload answered ${res.statusCode}`);
    });
    return { multipart, raw };
  } finally {
    await http.close();
    await part.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function line(name: string, leg: Leg): string {
  const gib = megabytes / 1024;
  return (
    `${name}: ${(leg.cpuS / gib).toFixed(2)} s CPU/GiB, ${(leg.full / gib).toFixed(1)} full + ` +
    `${(leg.scavenges / gib).toFixed(0)} scavenges per GiB, ${((megabytes * 1024 * 1024) / leg.wallS / 1e6).toFixed(0)} MB/s`
  );
}

const dir = mkdtempSync(join(tmpdir(), 'emuupload-bench-'));
try {
  const onePage = join(dir, 'one.pdf');
  await writePdf(onePage, 1, 'PrintRelay upload benchmark');
  const document = join(dir, 'large.pdf');
  writeLargeDocument(document, readFileSync(onePage), megabytes);
  for (let round = 1; round <= rounds; round += 1) {
    for (const [index, entry] of entries.entries()) {
      const { multipart, raw } = await uploadOnce(entry, document, dir);
      const name = entries.length > 1 ? `round ${round} entry ${index}` : `round ${round}`;
      console.log(`${name} ${line('multipart', multipart)}; ${line('raw', raw)}`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
