/**
 * The floor of the large document's whole path, measured in the same run as bench:e2e's `large`
 * line, in node processes with the agent's flags: the same file sent to the same printer by the
 * agent's IPP client alone (a bare node stream copy), and one hop of it between two node
 * processes (a plain node HTTP server streaming the file, a node process on the agent's core
 * downloading it with the agent's undici pool and file sink and hashing it). The whole path makes
 * three such copies one after the other (app -> emulator, emulator -> agent, agent -> printer);
 * the agent's own two (download, then send) take at least hop + send with these parts, so the
 * ceiling of `large_ratio` is the direct ipptool time over hop + send, before any upload.
 */
import { spawn } from 'node:child_process';
import { createReadStream, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { FILE_CHUNK } from '../../src/lib/file-sink.js';
import { onCore } from './pinning.js';
import { agentNodeFlags } from './processes.js';

const child = join(import.meta.dirname, 'large-floor-child.ts');

/** One leg in a child process with the agent's node flags (on `core` when given): its wall and CPU seconds. */
async function leg(args: string[], core?: number): Promise<{ seconds: number; cpuSeconds: number }> {
  const [command, argv] = onCore(core, process.execPath, [
    ...agentNodeFlags(),
    '--import',
    'tsx',
    child,
    ...args,
  ]);
  const proc = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
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

/** The floor's legs and the whole path's best time with them, in seconds. */
export interface LargeFloor {
  send: { seconds: number; cpuSeconds: number };
  hop: { seconds: number; cpuSeconds: number };
  /** hop + send: the agent's download and send, one after the other. */
  sequential: number;
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
    return { send, hop, sequential: hop.seconds + send.seconds };
  } finally {
    await server.close();
    rmSync(target, { force: true });
  }
}
