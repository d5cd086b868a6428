/**
 * The document of an IPP request, sent from its file (opened once: size, last bytes and body from
 * one handle) or from memory (a small document the agent holds), written with its last bytes on
 * their own, and reported flushed once every byte is with the operating system. "Sent" is more than that: see docs/agent-jobs.md.
 */
import type { ClientRequest } from 'node:http';
import { type FileHandle, open } from 'node:fs/promises';
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
}

/** A document held in memory. */
export function documentFromBytes(bytes: Buffer): DocumentSource {
  return { file: undefined, bytes, size: bytes.length, streaming: false };
}

/** The document's last bytes, written on their own once everything before them left the process. */
const TAIL_BYTES = 1024;

/**
 * The largest document in memory sent in one write with its request head: half the 16 KiB send
 * buffer Linux starts a TCP connection with (tcp_wmem), so on a kept-open connection whose
 * earlier exchanges are answered the kernel takes the whole write at once and the flush is
 * recorded in the same synchronous step. Larger documents go as body, then tail.
 */
export const ONE_WRITE_MAX_BYTES = 8 * 1024;

/**
 * Writes the request's IPP `header` and then the document to the request and calls `onFlushed`
 * once every byte of it is with the operating system (which delivers them even if this process
 * dies right after). A document in memory on a kept-open connection goes in one write with the
 * header (sendInOneWrite) when it is small (ONE_WRITE_MAX_BYTES). Otherwise the body goes chunk by chunk (pausing while the connection
 * is full) up to its last TAIL_BYTES; once the write callback says all of that left the process,
 * the tail goes out with `req.end()`, which uncorks the socket. When nothing is left in the
 * socket's own buffer nor in libuv's queue right after that call, the tail went to the kernel in
 * that synchronous step and is recorded at once; otherwise from the end callback (the request's
 * `finish`). A write still corked or queued in this process is never reported: a crash then would
 * cut the document. Resolves once the request finished.
 */
export async function streamDocument(
  document: DocumentSource,
  req: ClientRequest,
  header: Buffer,
  onFlushed?: () => void,
) {
  const { file, bytes, size } = document;
  if (bytes && size <= ONE_WRITE_MAX_BYTES && (await onKeptOpenConnection(req)))
    return sendInOneWrite(req, header, bytes, onFlushed);
  req.write(header);
  const tailStart = Math.max(0, size - TAIL_BYTES);
  const tail = bytes ? bytes.subarray(tailStart) : await readTail(file as FileHandle, tailStart, size);
  try {
    if (bytes) await writeBytes(bytes.subarray(0, tailStart), req);
    else await writeBody(file as FileHandle, tailStart, req);
  } catch (error) {
    req.destroy(error as Error);
    throw error;
  }
  if (req.destroyed) throw new Error('connection closed while sending the document');
  await endRecorded(req, tail, onFlushed);
}

/**
 * Ends the request with `last` and calls `onFlushed` once every byte is with the operating
 * system: in the same synchronous step when nothing was held back by the call, else from the
 * end callback. Resolves once the request finished.
 */
async function endRecorded(req: ClientRequest, last: Buffer, onFlushed?: () => void): Promise<void> {
  let recorded = false;
  const record = () => {
    if (recorded) return;
    recorded = true;
    onFlushed?.();
  };
  const finished = new Promise<void>((resolve) => {
    req.end(last, () => {
      if (!req.destroyed) record();
      resolve();
    });
  });
  if (!req.destroyed && nothingHeldBack(req)) record();
  await finished;
}

/**
 * Resolves true once the request has its socket when that is a kept-open connection already
 * connected (a request's socket comes a tick after the request is made), false for a new
 * connection; rejects when the request closes first.
 */
function onKeptOpenConnection(req: ClientRequest): Promise<boolean> {
  const connected = () => req.reusedSocket && req.socket !== null && !req.socket.connecting;
  if (req.socket) return Promise.resolve(connected());
  return new Promise<boolean>((resolve, reject) => {
    const onClose = () => reject(new Error('connection closed while sending the document'));
    req.once('close', onClose);
    req.once('socket', () => {
      req.off('close', onClose);
      resolve(connected());
    });
  });
}

/**
 * A small document in memory on a kept-open connection: the request's head, IPP header and the
 * whole document corked and sent with `req.end()` in one write (one system call instead of a
 * write for the head and body and another for the tail), recorded flushed by endRecorded.
 */
async function sendInOneWrite(req: ClientRequest, header: Buffer, bytes: Buffer, onFlushed?: () => void) {
  req.cork();
  req.write(header);
  await endRecorded(req, bytes, onFlushed);
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
async function writeBody(file: FileHandle, end: number, req: ClientRequest): Promise<void> {
  if (end === 0) return;
  const closed = closing(req);
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
      req.write(chunk, (error) => (error ? reject(error) : resolve())),
    );
    writing[turn]?.catch(() => undefined);
  }
  await Promise.race([Promise.all(writing), closed]);
}

/** In memory (a small document the agent holds): the body in one write; its callback says it left the process. */
async function writeBytes(body: Buffer, req: ClientRequest): Promise<void> {
  if (body.length === 0) return;
  const written = new Promise<void>((resolve, reject) =>
    req.write(body, (error) => (error ? reject(error) : resolve())),
  );
  written.catch(() => undefined);
  await Promise.race([written, closing(req)]);
}

/** Rejects once the request closes (handled: it only ends a race). */
function closing(req: ClientRequest): Promise<never> {
  const closed = new Promise<never>((_resolve, reject) => {
    const onClose = () => reject(new Error('connection closed while sending the document'));
    if (req.destroyed) onClose();
    else req.once('close', onClose);
  });
  closed.catch(() => undefined);
  return closed;
}

/**
 * True when the request's socket holds no byte in this process: none buffered by the stream (a
 * corked or pending write) and none queued in libuv. Anything written so far is then with the OS.
 */
function nothingHeldBack(req: ClientRequest): boolean {
  const socket = req.socket;
  if (!socket || req.writableLength > 0 || socket.writableLength > 0) return false;
  return writeQueueSize(req) === 0;
}

/** Bytes libuv still holds for the request's socket (0: everything written went to the OS). */
function writeQueueSize(req: ClientRequest): number {
  const handle = (req.socket as unknown as { _handle?: { writeQueueSize?: number } } | null)?._handle;
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
