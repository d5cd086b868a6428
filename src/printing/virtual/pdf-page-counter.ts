/**
 * Counts the pages of a PDF while it streams past: page objects (`/Type /Page`, not `/Pages`),
 * matched across chunk boundaries with a carried-over tail, so a 1 GB document is never held in
 * memory. Page objects inside compressed object streams (PDF 1.5 `/Type /ObjStm`, what pdf-lib
 * and many producers write) are found by inflating each object stream (bounded: 32 MiB). Pure
 * state (zlib only); nothing to clean up.
 */
import { inflateSync } from 'node:zlib';

const PAGE_OBJECT = /\/Type\s{0,8}\/Page(?![A-Za-z])/g;
const STREAM_START = /(?<![A-Za-z])stream(?:\r\n|\n|\r)/g;
/** Kept between chunks: longer than a page match and than a stream dictionary. */
const KEEP = 2048;
const MAX_OBJECT_STREAM = 32 * 1024 * 1024;

function countPages(text: string): number {
  let pages = 0;
  for (const _match of text.matchAll(PAGE_OBJECT)) pages++;
  return pages;
}

/** Feed chunks in order with push(), then read the total from finish(). */
export class PdfPageCounter {
  /** Unprocessed text (latin1: one character per byte). */
  private buffer = '';
  private pages = 0;
  /** Inside an object stream: its bytes so far and its /Length when the dictionary gave it. */
  private objectStream: { parts: string[]; size: number; length: number | undefined } | undefined;

  /** Scans one chunk. */
  push(chunk: Buffer): void {
    this.buffer += chunk.toString('latin1');
    while (this.objectStream ? this.collect() : this.scan()) {
      // each step consumes part of the buffer; stop when it needs more bytes
    }
  }

  /** Scans what is left and returns the page count. */
  finish(): number {
    if (!this.objectStream) this.pages += countPages(this.buffer);
    this.buffer = '';
    this.objectStream = undefined;
    return this.pages;
  }

  /** Outside object streams; true when it consumed a stream start and should run again. */
  private scan(): boolean {
    STREAM_START.lastIndex = 0;
    const start = STREAM_START.exec(this.buffer);
    if (!start) {
      const safeEnd = this.buffer.length - KEEP;
      if (safeEnd > 0) {
        const done = this.buffer.slice(0, safeEnd + 32);
        for (const match of done.matchAll(PAGE_OBJECT)) if (match.index < safeEnd) this.pages++;
        this.buffer = this.buffer.slice(safeEnd);
      }
      return false;
    }
    const afterStart = start.index + start[0].length;
    // "stream\r" at the very end: the \n may follow in the next chunk.
    if (start[0].endsWith('\r') && afterStart === this.buffer.length) return false;
    const before = this.buffer.slice(0, start.index);
    this.pages += countPages(before);
    const dictionary = before.slice(before.lastIndexOf('obj'));
    if (/\/Type\s*\/ObjStm/.test(dictionary) && /\/FlateDecode/.test(dictionary)) {
      const length = /\/Length\s+(\d+)(?!\s+\d+\s+R)/.exec(dictionary);
      this.objectStream = { parts: [], size: 0, length: length ? Number(length[1]) : undefined };
    }
    this.buffer = this.buffer.slice(afterStart);
    return true;
  }

  /** Inside an object stream; true when it ended (inflated and counted). */
  private collect(): boolean {
    const stream = this.objectStream!;
    const end = stream.length !== undefined ? stream.length - stream.size : this.buffer.indexOf('endstream');
    if (end < 0 || end > this.buffer.length) {
      const keep = stream.length === undefined ? 9 : 0;
      const take = Math.max(0, this.buffer.length - keep);
      stream.parts.push(this.buffer.slice(0, take));
      stream.size += take;
      this.buffer = this.buffer.slice(take);
      if (stream.size > MAX_OBJECT_STREAM) this.objectStream = undefined;
      return false;
    }
    stream.parts.push(this.buffer.slice(0, end));
    this.buffer = this.buffer.slice(end);
    this.objectStream = undefined;
    try {
      this.pages += countPages(inflateSync(Buffer.from(stream.parts.join(''), 'latin1')).toString('latin1'));
    } catch {
      // A damaged object stream: its pages stay uncounted, the rest of the file still counts.
    }
    return true;
  }
}
