/**
 * One leg of the large document's floor (large-floor.ts), run in a process of its own so that it
 * can be pinned like the agent: `send <file> <printer-uri>` sends the file to the printer with the
 * agent's IPP client (Print-Job, no agent around it); `hop <url> <target>` downloads a URL into
 * `target` with the agent's undici pool and file sink, hashing it with SHA-256 on the way (one
 * copy of the document between two node processes, as each of the upload and the download is).
 * Prints one JSON line: the wall seconds and this process's CPU seconds of the leg.
 */
import { createHash } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { Pool } from '../../src/client/undici-core.js';
import { fileSink } from '../../src/lib/file-sink.js';
import { silentLogger } from '../../src/log/logger.js';
import { IppClient } from '../../src/printing/ipp/ipp-client.js';

const [mode, source, destination] = process.argv.slice(2);

async function send(file: string, uri: string): Promise<void> {
  const client = new IppClient({ uri, logger: silentLogger() });
  try {
    await client.printJob({
      documentPath: file,
      documentFormat: 'application/pdf',
      jobName: 'floor',
      jobAttributes: [],
    });
  } finally {
    client.close();
  }
}

async function hop(url: string, target: string): Promise<void> {
  const { origin, pathname } = new URL(url);
  const pool = new Pool(origin, { connections: 1 });
  try {
    const res = await pool.request({ method: 'GET', path: pathname });
    if (res.statusCode !== 200) throw new Error(`GET ${url}: HTTP ${res.statusCode}`);
    const hash = createHash('sha256');
    await pipeline(res.body, fileSink(target, { onChunk: (chunk) => hash.update(chunk) }));
    hash.digest('hex');
  } finally {
    await pool.close();
  }
}

const cpu0 = process.cpuUsage();
const t0 = performance.now();
if (mode === 'send' && source && destination) await send(source, destination);
else if (mode === 'hop' && source && destination) await hop(source, destination);
else throw new Error('usage: large-floor-child send <file> <printer-uri> | hop <url> <target>');
const cpu = process.cpuUsage(cpu0);
console.log(
  JSON.stringify({ seconds: (performance.now() - t0) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6 }),
);
