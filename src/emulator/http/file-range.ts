/**
 * Byte ranges of a stored file over HTTP, decided without I/O: a single `Range: bytes=a-b | a- |
 * -n` gives 206 with Content-Range, an unsatisfiable one 416 with `Content-Range: bytes * /size`,
 * anything else (no Range, several ranges, a stale If-Range) the whole file with 200. ETag,
 * Accept-Ranges and Content-Length always. file-sender.ts writes the answer.
 */

/** One satisfiable byte range of a file. */
export interface ByteRange {
  start: number;
  /** Inclusive. */
  end: number;
}

/** A stored file as served: where, how long, its strong ETag and its type. */
export interface ServedFile {
  path: string;
  size: number;
  etag: string;
  contentType: string;
}

/** What to answer: the status, the headers, and the bytes of the body (none for 416). */
export interface RangeAnswer {
  status: 200 | 206 | 416;
  headers: Record<string, string>;
  range?: ByteRange;
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

/** The answer to a GET of `file` with these Range and If-Range headers (If-Range: the ETag only). */
export function rangeAnswer(
  request: { range?: string | undefined; ifRange?: string | undefined },
  file: ServedFile,
): RangeAnswer {
  const headers: Record<string, string> = {
    'accept-ranges': 'bytes',
    etag: file.etag,
    'content-type': file.contentType,
  };
  const rangeHeader =
    request.ifRange === undefined || request.ifRange === file.etag ? request.range : undefined;
  const range = parseRange(rangeHeader, file.size);
  if (range === 'unsatisfiable') {
    return { status: 416, headers: { ...headers, 'content-range': `bytes */${file.size}` } };
  }
  if (range === undefined) {
    const whole = { start: 0, end: file.size - 1 };
    return { status: 200, headers: { ...headers, 'content-length': String(file.size) }, range: whole };
  }
  return {
    status: 206,
    headers: {
      ...headers,
      'content-range': `bytes ${range.start}-${range.end}/${file.size}`,
      'content-length': String(range.end - range.start + 1),
    },
    range,
  };
}
