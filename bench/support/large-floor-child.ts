/**
 * One leg of the large document's floor (large-floor.ts), run in a process of its own so that it
 * can be pinned like the agent: `send <file> <printer-uri>` sends the file to the printer with the
 * agent's IPP client (Print-Job, no agent around it); `hop <url> <target>` downloads a URL into
 * `target` with the agent's undici pool and file sink, hashing it with SHA-256 on the way (one
 * copy of the document between two node processes, as each of the upload and the download is);
 * `receive <target>` is the emulator's side of an upload without the emulator: a plain node HTTP
 * server that takes one multipart PUT, parses it with busboy as the emulator does and pours the
 * part `file` into `target` through the file sink with SHA-256 (it prints `{"port":N}` first and
 * times from the first byte of the request to the written file).
 * Prints one JSON line: the wall seconds and this process's CPU seconds of the leg.
 */
import { createHash } from 'node:crypto';
import { type IncomingMessage, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import { Pool } from '../../src/client/undici-core.js';
import { FILE_CHUNK, fileSink, pourInto } from '../../src/lib/file-sink.js';
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

/** The part `file` of a multipart request into `target` (busboy with the emulator's settings). */
function takePart(request: IncomingMessage, target: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const parser = busboy({ headers: request.headers, highWaterMark: FILE_CHUNK, fileHwm: FILE_CHUNK });
    const hash = createHash('sha256');
    parser.on('file', (_name, part) => {
      pourInto(part, fileSink(target, { hash })).then(() => hash.digest('hex'), reject);
    });
    parser.on('close', resolve).on('error', reject);
    request.pipe(parser);
  });
}

/** Serves one upload into `target`; resolves with the wall and CPU seconds from its first byte. */
function receive(target: string): Promise<{ seconds: number; cpuSeconds: number }> {
  return new Promise((resolve, reject) => {
    const server = createServer((request, response) => {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      takePart(request, target).then(() => {
        const cpu = process.cpuUsage(cpu0);
        response.writeHead(201).end();
        server.close();
        resolve({ seconds: (performance.now() - t0) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6 });
      }, reject);
    });
    server.listen(0, '127.0.0.1', () => {
      console.log(JSON.stringify({ port: (server.address() as AddressInfo).port }));
    });
  });
}

const cpu0 = process.cpuUsage();
const t0 = performance.now();
if (mode === 'receive' && source) {
  console.log(JSON.stringify(await receive(source)));
  process.exit(0);
}
if (mode === 'send' && source && destination) await send(source, destination);
else if (mode === 'hop' && source && destination) await hop(source, destination);
else
  throw new Error(
    'usage: large-floor-child send <file> <printer-uri> | hop <url> <target> | receive <target>',
  );
const cpu = process.cpuUsage(cpu0);
console.log(
  JSON.stringify({ seconds: (performance.now() - t0) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6 }),
);
