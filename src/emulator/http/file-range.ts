/**
 * Serving a stored file with HTTP byte ranges: a single `Range: bytes=a-b | a- | -n` gives 206
 * with Content-Range, an unsatisfiable one 416 with `Content-Range: bytes * /size`, anything else
 * (no Range, several ranges, a stale If-Range) the whole file with 200. ETag and Content-Length
 * always. The body streams from disk in 1 MiB reads; the reply owns the stream.
 */
import { createReadStream } from 'node:fs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { FILE_CHUNK } from '../../lib/file-sink.js';

/** One satisfiable byte range of a file. */
export interface ByteRange {
  start: number;
  /** Inclusive. */
  end: number;
}

/**
 * Parses a Range header against a file of `size` bytes: a range, 'unsatisfiable', or undefined
 * when the whole file should be sent (no header, other unit, several ranges, bad syntax).
 */
export function parseRange(
  header: string | undefined,
  size: number,
): ByteRange | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return undefined;
  const [, from, to] = match as unknown as [string, string, string];
  if (from === '' && to === '') return undefined;
  if (from === '') {
    const suffix = Number(to);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(from);
  const end = to === '' ? size - 1 : Math.min(Number(to), size - 1);
  if (start >= size || (to !== '' && Number(to) < start)) return 'unsatisfiable';
  return { start, end };
}

/** Sends `path` (of `size` bytes, strong `etag`) honouring Range and If-Range. */
export function sendFileWithRange(
  request: FastifyRequest,
  reply: FastifyReply,
  file: { path: string; size: number; etag: string; contentType: string },
): FastifyReply {
  reply.header('accept-ranges', 'bytes').header('etag', file.etag).header('content-type', file.contentType);
  const ifRange = request.headers['if-range'];
  const rangeHeader = ifRange === undefined || ifRange === file.etag ? request.headers.range : undefined;
  const range = parseRange(rangeHeader, file.size);
  if (range === 'unsatisfiable') {
    return reply.status(416).header('content-range', `bytes */${file.size}`).send();
  }
  if (range === undefined) {
    reply.header('content-length', String(file.size));
    return reply.status(200).send(createReadStream(file.path, { highWaterMark: FILE_CHUNK }));
  }
  reply.header('content-range', `bytes ${range.start}-${range.end}/${file.size}`);
  reply.header('content-length', String(range.end - range.start + 1));
  return reply
    .status(206)
    .send(createReadStream(file.path, { start: range.start, end: range.end, highWaterMark: FILE_CHUNK }));
}
