/**
 * The document of an IPP request, sent from its file (opened once: size, last bytes and body from
 * one handle) or from memory (a small document the agent holds), written with its last bytes on
 * their own, and reported flushed once every byte is with the operating system. "Sent" is more than that: see docs/agent-jobs.md.
 */
import { type FileHandle, open } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { PermanentError } from '../../lib/errors.js';
import { FILE_CHUNK } from '../../lib/file-sink.js';

/**
 * The document of a request: one open file for its size, its tail and its body, or its bytes in
 * memory (a small document the agent holds: no file to open or read). Once `streaming`, the
 * sender closes the file when it is done with it (it may go on after an early answer).
 */
export interface DocumentSource {
  file: FileHandle | undefined;
  bytes?: Buffer;
  size: number;
  streaming: boolean;
  /** Set once every byte of the request carrying it was written (its last write's callback came). */
  written?: boolean;
}

/** A document held in memory. */
export function documentFromBytes(bytes: Buffer): DocumentSource {
  return { file: undefined, bytes, size: bytes.length, streaming: false };
}

/** The document's last bytes, written on their own once everything before them left the process. */
const TAIL_BYTES = 1024;

/**
 * The largest document in memory copied into one buffer with its request head: half the 16 KiB
 * send buffer Linux starts a TCP connection with (tcp_wmem), so on a kept-open connection whose
 * earlier exchanges are answered the kernel takes the whole write at once and the flush is
 * recorded in the same synchronous step. A larger document in memory goes corked with the head
 * (one system call, no copy), recorded at once when the kernel took all of it, else from the
 * write's callback; a document from its file goes as body, then tail.
 */
export const ONE_WRITE_MAX_BYTES = 8 * 1024;

/**
 * Writes one request carrying a document on the connection's socket: the HTTP `head`, the IPP
 * `header`, then the document, and calls `onFlushed` once every byte of the document is with the
 * operating system (which delivers them even if this process dies right after). Resolves once the
 * whole request was written. A document in memory goes with the head in one system call
 * (ONE_WRITE_MAX_BYTES). From its file, the body goes chunk by chunk (pausing while the
 * connection is full) up to its last TAIL_BYTES; once the write callbacks say all of that left
 * the process, the tail is written on its own. When nothing is left in the
 * socket's own buffer nor in libuv's queue right after that last write call, the last bytes went
 * to the kernel in that synchronous step and is recorded at once; otherwise from the write's callback. A
 * write still queued in this process is never reported: a crash then would cut the document.
 */
export async function writeRequest(
  socket: Socket,
  head: Buffer,
  header: Buffer,
  document: DocumentSource,
  onFlushed?: () => void,
): Promise<void> {
  const { closed, dispose } = closing(socket);
  try {
    await writeParts(socket, head, header, document, closed, onFlushed);
  } finally {
    dispose();
  }
}

async function writeParts(
  socket: Socket,
  head: Buffer,
  header: Buffer,
  document: DocumentSource,
  closed: Promise<never>,
  onFlushed?: () => void,
): Promise<void> {
  const start = Buffer.concat([head, header], head.length + header.length);
  const { file, bytes, size } = document;
  // In memory: small, one buffer and one write; larger, the head and the document corked into one
  // system call (no copy of the document).
  if (bytes && size <= ONE_WRITE_MAX_BYTES)
    return writeRecorded(socket, [Buffer.concat([start, bytes], start.length + size)], closed, onFlushed);
  if (bytes) return writeRecorded(socket, [start, bytes], closed, onFlushed);
  const tailStart = Math.max(0, size - TAIL_BYTES);
  const tail = await readTail(file as FileHandle, tailStart, size);
  await writeBytes(start, socket, closed);
  await writeBody(file as FileHandle, tailStart, socket, closed);
  if (socket.destroyed) throw new Error('connection closed while sending the document');
  await writeRecorded(socket, [tail], closed, onFlushed);
}

/**
 * Writes `parts` (corked into one system call when there are several) and calls `onFlushed` once
 * every byte is with the operating system: in the same synchronous step when nothing was held back
 * by the call, else from the last write's callback. Resolves once that callback came; rejects when
 * a write failed or the socket closed first.
 */
async function writeRecorded(
  socket: Socket,
  parts: Buffer[],
  closed: Promise<never>,
  onFlushed?: () => void,
): Promise<void> {
  let recorded = false;
  const record = () => {
    if (recorded) return;
    recorded = true;
    onFlushed?.();
  };
  const last = parts.length - 1;
  if (last > 0) socket.cork();
  for (let i = 0; i < last; i++) socket.write(parts[i] as Buffer);
  const written = new Promise<void>((resolve, reject) => {
    socket.write(parts[last] as Buffer, (error) => {
      if (error) reject(error);
      else {
        record();
        resolve();
      }
    });
  });
  if (last > 0) socket.uncork();
  written.catch(() => undefined);
  if (!socket.destroyed && nothingHeldBack(socket)) record();
  await Promise.race([written, closed]);
}

/**
 * Writes bytes [0, end) of `file` to the request and resolves once every one of them left the
 * process (the last write's callback). The file is read FILE_CHUNK at a time into two buffers
 * used in turn for the whole document: one is read into while the other is being written, and a
 * buffer is read into again only after its write's callback said the socket is done with it.
 * Reading into fresh buffers instead (a file read stream) allocated 1 GiB of them for a 1 GiB
 * document, memory outside the V8 heap whose collection made V8 run about 35 full collections of
 * the agent's heap per GiB (docs/performance.md). Rejects when a read fails or the request closes.
 */
async function writeBody(
  file: FileHandle,
  end: number,
  socket: Socket,
  closed: Promise<never>,
): Promise<void> {
  if (end === 0) return;
  const length = Math.min(FILE_CHUNK, end);
  const buffers = [Buffer.allocUnsafe(length), Buffer.allocUnsafe(length)];
  const writing: (Promise<void> | undefined)[] = [undefined, undefined];
  let turn = 0;
  for (let position = 0; position < end; turn ^= 1) {
    const buffer = buffers[turn] as Buffer;
    if (writing[turn]) await Promise.race([writing[turn], closed]);
    const { bytesRead } = await file.read(buffer, 0, Math.min(buffer.length, end - position), position);
    if (bytesRead === 0) throw new Error(`the document ended at byte ${position} of ${end}`);
    position += bytesRead;
    const chunk = buffer.subarray(0, bytesRead);
    writing[turn] = new Promise<void>((resolve, reject) =>
      socket.write(chunk, (error) => (error ? reject(error) : resolve())),
    );
    writing[turn]?.catch(() => undefined);
  }
  await Promise.race([Promise.all(writing), closed]);
}

/** In memory (a small document the agent holds): the body in one write; its callback says it left the process. */
async function writeBytes(body: Buffer, socket: Socket, closed: Promise<never>): Promise<void> {
  if (body.length === 0) return;
  const written = new Promise<void>((resolve, reject) =>
    socket.write(body, (error) => (error ? reject(error) : resolve())),
  );
  written.catch(() => undefined);
  await Promise.race([written, closed]);
}

/**
 * Rejects once the socket closes (handled: it only ends races); `dispose` removes its listener,
 * so a kept-open connection does not gather one per request.
 */
function closing(socket: Socket): { closed: Promise<never>; dispose: () => void } {
  let onClose: () => void = () => undefined;
  const closed = new Promise<never>((_resolve, reject) => {
    onClose = () => reject(new Error('connection closed while sending the document'));
    if (socket.destroyed) onClose();
    else socket.once('close', onClose);
  });
  closed.catch(() => undefined);
  return { closed, dispose: () => socket.off('close', onClose) };
}

/**
 * True when the socket holds no byte in this process: none buffered by the stream (a
 * corked or pending write) and none queued in libuv. Anything written so far is then with the OS.
 */
function nothingHeldBack(socket: Socket): boolean {
  if (socket.writableLength > 0) return false;
  return writeQueueSize(socket) === 0;
}

/** Bytes libuv still holds for the socket (0: everything written went to the OS). */
function writeQueueSize(socket: Socket): number {
  const handle = (socket as unknown as { _handle?: { writeQueueSize?: number } | null })._handle;
  return handle?.writeQueueSize ?? 1;
}

async function readTail(file: FileHandle, start: number, end: number): Promise<Buffer> {
  const buffer = Buffer.alloc(end - start);
  const { bytesRead } = await file.read(buffer, 0, buffer.length, start);
  return buffer.subarray(0, bytesRead);
}

/** Opens the document once for its size, its tail and its body; the caller closes it. */
export async function openDocument(path: string): Promise<DocumentSource> {
  let file: FileHandle | undefined;
  try {
    file = await open(path, 'r');
    return { file, size: (await file.stat()).size, streaming: false };
  } catch (error) {
    await file?.close().catch(() => undefined);
    throw new PermanentError('document_unreadable', `document ${path} cannot be read`, { cause: error });
  }
}
