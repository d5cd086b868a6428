/**
 * The floor of the large document's whole path, measured in the same run as bench:e2e's `large`
 * line, in node processes with the agent's flags: the same file sent to the same printer by the
 * agent's IPP client alone (a bare node stream copy), and one hop of it between two node
 * processes (a plain node HTTP server streaming the file, a node process on the agent's core
 * downloading it with the agent's undici pool and file sink and hashing it); and the upload leg
 * without the emulator (a plain node HTTP server with the emulator's flags taking the multipart
 * PUT with busboy into the file sink with SHA-256, sent as the app's client sends it). The whole
 * path makes three such copies one after the other (app -> emulator, emulator -> agent, agent ->
 * printer): upload + hop + send is its floor with these parts, and the largest of the three the
 * floor of a path that overlapped them; the ceiling of `large_ratio` is the direct ipptool time
 * over each.
 */
import { spawn } from 'node:child_process';
import { createReadStream, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { FILE_CHUNK } from '../../src/lib/file-sink.js';
import { Pool } from '../../src/client/undici-core.js';
import { onCore } from './pinning.js';
import { agentNodeEnv, agentNodeFlags, emulatorNodeFlags } from './processes.js';

const child = join(import.meta.dirname, 'large-floor-child.ts');

/**
 * One leg in a child process with `flags` and `env` added to this process's environment (the
 * agent's flags and service environment unless given; on `core` when given): its wall and CPU
 * seconds. `onFirstLine` sees the child's first line of output as it arrives.
 */
async function leg(
  args: string[],
  core?: number,
  flags: string[] = agentNodeFlags(),
  onFirstLine?: (line: string) => void,
  env: Record<string, string> = agentNodeEnv(),
): Promise<{ seconds: number; cpuSeconds: number }> {
  const [command, argv] = onCore(core, process.execPath, [...flags, '--import', 'tsx', child, ...args]);
  const proc = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let out = '';
  let err = '';
  proc.stdout.on('data', (chunk: Buffer) => {
    const first = !out.includes('\n');
    out += chunk.toString();
    if (first && out.includes('\n')) onFirstLine?.(out.slice(0, out.indexOf('\n')));
  });
  proc.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => proc.once('exit', resolve));
  if (code !== 0) throw new Error(`large-floor-child ${args[0]} exited ${code}: ${err.slice(-1000)}`);
  return JSON.parse(out.trim().split('\n').pop() ?? '{}');
}

/** Serves `file` over plain HTTP (streamed in FILE_CHUNK reads) until close(). */
async function serveFile(file: string): Promise<{ url: string; close(): Promise<void> }> {
  const size = statSync(file).size;
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-length': String(size), 'content-type': 'application/pdf' });
    createReadStream(file, { highWaterMark: FILE_CHUNK }).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/big.pdf`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** PUTs `file` to `url` as a multipart form with the part `file`, as SfapiClient.upload does. */
async function putMultipart(url: string, file: string): Promise<void> {
  const boundary = '----printrelayfloor';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  async function* body() {
    yield head;
    for await (const chunk of createReadStream(file, { highWaterMark: FILE_CHUNK })) yield chunk as Buffer;
    yield tail;
  }
  const { origin } = new URL(url);
  const pool = new Pool(origin, { connections: 1 });
  try {
    const res = await pool.request({
      method: 'PUT',
      path: '/upload',
      headers: {
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + statSync(file).size + tail.length),
      },
      body: Readable.from(body()),
    });
    await res.body.dump();
    if (res.statusCode !== 201) throw new Error(`PUT ${url}: HTTP ${res.statusCode}`);
  } finally {
    await pool.close();
  }
}

/** The upload leg without the emulator: a receiving child with the emulator's flags, fed from here. */
async function uploadLeg(file: string, target: string): Promise<{ seconds: number; cpuSeconds: number }> {
  let sent: Promise<void> = Promise.resolve();
  const result = await leg(
    ['receive', target],
    undefined,
    emulatorNodeFlags(),
    (line) => {
      const { port } = JSON.parse(line) as { port: number };
      sent = putMultipart(`http://127.0.0.1:${port}/upload`, file);
    },
    {},
  );
  await sent;
  return result;
}

/** The floor's legs and the whole path's best time with them, in seconds. */
export interface LargeFloor {
  upload: { seconds: number; cpuSeconds: number };
  send: { seconds: number; cpuSeconds: number };
  hop: { seconds: number; cpuSeconds: number };
  /** hop + send: the agent's download and send, one after the other. */
  sequential: number;
  /** upload + hop + send: the whole path's three copies one after the other. */
  whole: number;
  /** The longest of the three: the floor of a path that ran them at the same time. */
  overlapped: number;
}

/** Measures the floor of `file` to `printerUri`, the legs on `core` (the agent's) when given. */
export async function largeFloor(
  work: string,
  file: string,
  printerUri: string,
  core?: number,
): Promise<LargeFloor> {
  const send = await leg(['send', file, printerUri], core);
  const server = await serveFile(file);
  const target = join(work, 'floor-hop.pdf');
  try {
    const hop = await leg(['hop', server.url, target], core);
    rmSync(target, { force: true });
    const upload = await uploadLeg(file, target);
    return {
      upload,
      send,
      hop,
      sequential: hop.seconds + send.seconds,
      whole: upload.seconds + hop.seconds + send.seconds,
      overlapped: Math.max(upload.seconds, hop.seconds, send.seconds),
    };
  } finally {
    await server.close();
    rmSync(target, { force: true });
  }
}
