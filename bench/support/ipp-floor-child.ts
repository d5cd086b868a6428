/**
 * The bare floor of bench:floor: node + undici sending the same Print-Job to the same printer
 * `jobs` times over one connection, the request encoded once with the agent's IPP codec, with no
 * job logic, no cloud and no store, as ipptool's batch does (a busy answer is sent again after
 * 1 ms). A node process with the agent's flags, pinned like the agent.
 *
 *   ipp-floor-child.ts <printer uri> <document> <jobs> <warm-up jobs>
 * Prints one JSON line: the wall seconds and this process's CPU seconds for the jobs.
 */
import { readFileSync } from 'node:fs';
import { sleep } from '../../src/lib/abort.js';
import { Pool } from '../../src/client/undici-core.js';
import { operationPreamble } from '../../src/printing/ipp/ipp-attributes.js';
import { encodeMessage } from '../../src/printing/ipp/ipp-codec.js';
import { OPERATION, STATUS, TAG } from '../../src/printing/ipp/ipp-constants.js';
import { parseIppTarget } from '../../src/printing/ipp/ipp-transport.js';

const [uri, documentPath, count, warmup] = process.argv.slice(2);
if (!uri || !documentPath || !count || !warmup)
  throw new Error('usage: ipp-floor-child <printer uri> <document> <jobs> <warm-up jobs>');
const jobs = Number(count);
const target = parseIppTarget(uri);
const header = encodeMessage({
  version: { major: 2, minor: 0 },
  code: OPERATION.PRINT_JOB,
  requestId: 1,
  groups: [
    {
      tag: TAG.OPERATION,
      attributes: [
        ...operationPreamble(target.printerUri),
        { tag: TAG.NAME, name: 'requesting-user-name', values: ['bench'] },
        { tag: TAG.MIME_TYPE, name: 'document-format', values: ['application/pdf'] },
      ],
    },
  ],
});
const request = Buffer.concat([header, readFileSync(documentPath)]);
const pool = new Pool(`http://${target.host}:${target.port}`, { connections: 1 });

/** One Print-Job, sent again after 1 ms while the printer answers busy. */
async function printOnce(): Promise<void> {
  for (;;) {
    const res = await pool.request({
      method: 'POST',
      path: target.path,
      headers: { 'content-type': 'application/ipp' },
      body: request,
    });
    const answer = Buffer.from(await res.body.arrayBuffer());
    const status = answer.readUInt16BE(2);
    if (res.statusCode === 200 && status === STATUS.OK) return;
    if (status !== STATUS.BUSY)
      throw new Error(`Print-Job: HTTP ${res.statusCode}, IPP status 0x${status.toString(16)}`);
    await sleep(1);
  }
}

// Warm-up jobs outside the measurement, as the agent's figure is taken after its warm-up.
for (let i = 0; i < Number(warmup); i++) await printOnce();
const cpu0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < jobs; i++) await printOnce();
const cpu = process.cpuUsage(cpu0);
await pool.close();
console.log(
  JSON.stringify({ seconds: (performance.now() - t0) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6 }),
);
