/**
 * The IPP/1.1-2.0 message codec (RFC 8010): attribute groups to bytes and back. Tag numbers and
 * status names come from `ipp-encoder` (see ipp-constants.ts); the value codec is ours because
 * ipp-encoder has no collection, resolution or rangeOfInteger support and throws RangeError on a
 * truncated buffer. Decoding is bounds-checked: a short buffer raises IppIncompleteError (the
 * caller may wait for more bytes), malformed bytes raise IppDecodeError; nothing else escapes.
 * Pure; nothing to clean up.
 */
import { TAG } from './ipp-constants.js';

/** A resolution value (printer-resolution). */
export interface IppResolution {
  x: number;
  y: number;
  units: 'dpi' | 'dpcm';
}

/** A rangeOfInteger value (page-ranges, copies-supported). */
export interface IppRange {
  lower: number;
  upper: number;
}

/** A collection value: its member attributes in order. */
export interface IppCollection {
  members: IppAttribute[];
}

/** Out-of-band values (unsupported, unknown, no-value). */
export interface IppOutOfBand {
  outOfBand: number;
}

export type IppValue =
  | string
  | number
  | boolean
  | Date
  | IppResolution
  | IppRange
  | IppCollection
  | IppOutOfBand;

/** One attribute: its value tag, name and one or more values. */
export interface IppAttribute {
  tag: number;
  name: string;
  values: IppValue[];
}

/** One attribute group (operation, job, printer, unsupported). */
export interface IppGroup {
  tag: number;
  attributes: IppAttribute[];
}

/** A request (code = operation id) or response (code = status code). */
export interface IppMessage {
  version: { major: number; minor: number };
  code: number;
  requestId: number;
  groups: IppGroup[];
}

/** The buffer ended before the message did; more bytes may complete it. */
export class IppIncompleteError extends Error {}

/** The bytes are not an IPP message. */
export class IppDecodeError extends Error {}

/** True for a value that is a collection. */
export function isCollection(value: IppValue): value is IppCollection {
  return typeof value === 'object' && value !== null && 'members' in value;
}

// ---------------------------------------------------------------- encoding

/**
 * Writes into one buffer that grows by doubling: no buffer per field, one copy at the end. A
 * request's attributes are a few hundred bytes, so the first buffer usually holds them all.
 */
class ByteWriter {
  private buf = Buffer.allocUnsafe(512);
  private length = 0;
  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.length + n));
    this.buf.copy(grown, 0, 0, this.length);
    this.buf = grown;
  }
  u8(value: number): void {
    this.room(1);
    this.buf[this.length++] = value & 0xff;
  }
  u16(value: number): void {
    this.room(2);
    this.buf.writeUInt16BE(value, this.length);
    this.length += 2;
  }
  i32(value: number): void {
    this.room(4);
    this.buf.writeInt32BE(value, this.length);
    this.length += 4;
  }
  bytes(bytes: Buffer): void {
    this.room(bytes.length);
    bytes.copy(this.buf, this.length);
    this.length += bytes.length;
  }
  /** A string as a 2-byte length and its UTF-8 bytes. */
  text(value: string): void {
    const size = Buffer.byteLength(value, 'utf8');
    if (size > 0xffff) throw new RangeError('IPP value longer than 65535 bytes');
    this.u16(size);
    this.room(size);
    this.length += this.buf.write(value, this.length, 'utf8');
  }
  lengthPrefixed(bytes: Buffer): void {
    if (bytes.length > 0xffff) throw new RangeError('IPP value longer than 65535 bytes');
    this.u16(bytes.length);
    this.bytes(bytes);
  }
  /** The bytes written, copied out (the writer's buffer is larger). */
  result(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.length));
  }
}

/** Writes one value with its 2-byte length; strings and integers without a buffer of their own. */
function writeValue(w: ByteWriter, tag: number, value: IppValue): void {
  if (tag === TAG.INTEGER || tag === TAG.ENUM) {
    w.u16(4);
    w.i32(value as number);
  } else if (tag === TAG.BOOLEAN) {
    w.u16(1);
    w.u8(value ? 1 : 0);
  } else if (typeof value === 'string' && !(tag >= 0x10 && tag <= 0x1f)) {
    w.text(value);
  } else {
    w.lengthPrefixed(encodeValueBytes(tag, value));
  }
}

function encodeValueBytes(tag: number, value: IppValue): Buffer {
  if (tag === TAG.RESOLUTION) {
    const r = value as IppResolution;
    const b = Buffer.alloc(9);
    b.writeInt32BE(r.x);
    b.writeInt32BE(r.y, 4);
    b.writeInt8(r.units === 'dpcm' ? 4 : 3, 8);
    return b;
  }
  if (tag === TAG.RANGE_OF_INTEGER) {
    const r = value as IppRange;
    const b = Buffer.alloc(8);
    b.writeInt32BE(r.lower);
    b.writeInt32BE(r.upper, 4);
    return b;
  }
  if (tag === TAG.DATE_TIME) return encodeDate(value as Date);
  if (tag >= 0x10 && tag <= 0x1f) return Buffer.alloc(0);
  return Buffer.from(String(value), 'utf8');
}

function encodeDate(date: Date): Buffer {
  const b = Buffer.alloc(11);
  b.writeUInt16BE(date.getUTCFullYear());
  b.writeUInt8(date.getUTCMonth() + 1, 2);
  b.writeUInt8(date.getUTCDate(), 3);
  b.writeUInt8(date.getUTCHours(), 4);
  b.writeUInt8(date.getUTCMinutes(), 5);
  b.writeUInt8(date.getUTCSeconds(), 6);
  b.writeUInt8(Math.floor(date.getUTCMilliseconds() / 100), 7);
  b.write('+', 8, 'latin1');
  return b;
}

function writeAttribute(w: ByteWriter, attr: IppAttribute): void {
  attr.values.forEach((value, index) => {
    const name = index === 0 ? attr.name : '';
    if (attr.tag === TAG.BEGIN_COLLECTION) {
      w.u8(TAG.BEGIN_COLLECTION);
      w.text(name);
      w.u16(0);
      for (const member of (value as IppCollection).members) {
        w.u8(TAG.MEMBER_NAME);
        w.u16(0);
        w.text(member.name);
        writeAttribute(w, { ...member, name: '' });
      }
      w.u8(TAG.END_COLLECTION);
      w.u16(0);
      w.u16(0);
      return;
    }
    w.u8(attr.tag);
    w.text(name);
    writeValue(w, attr.tag, value);
  });
}

/** Encodes a message (attribute groups and end tag, no document data). */
export function encodeMessage(message: IppMessage): Buffer {
  const w = new ByteWriter();
  writeHead(w, message.version, message.code, message.requestId);
  for (const group of message.groups) {
    w.u8(group.tag);
    for (const attr of group.attributes) writeAttribute(w, attr);
  }
  w.u8(TAG.END_OF_ATTRIBUTES);
  return w.result();
}

function writeHead(w: ByteWriter, version: IppMessage['version'], code: number, requestId: number): void {
  w.u8(version.major);
  w.u8(version.minor);
  w.u16(code);
  w.i32(requestId);
}

/** Attributes encoded once (no group tag), to start a request's operation group with encodeRequest. */
export function encodeAttributes(attributes: IppAttribute[]): Buffer {
  const w = new ByteWriter();
  for (const attr of attributes) writeAttribute(w, attr);
  return w.result();
}

/** A request whose operation group starts with attributes encoded beforehand. */
export interface IppRequestParts {
  version: IppMessage['version'];
  code: number;
  requestId: number;
  /** The first operation attributes, encoded once (encodeAttributes): charset, language, printer-uri. */
  operationStart: Buffer;
  /** The request's own operation attributes, after `operationStart`. */
  operation: IppAttribute[];
  /** Job template attributes (a job group when not empty). */
  job?: IppAttribute[];
}

/**
 * Encodes a request the way encodeMessage would encode the same attributes, copying the part of
 * the operation group that never changes for a printer instead of encoding it again.
 */
export function encodeRequest(parts: IppRequestParts): Buffer {
  const w = new ByteWriter();
  writeHead(w, parts.version, parts.code, parts.requestId);
  w.u8(TAG.OPERATION);
  w.bytes(parts.operationStart);
  for (const attr of parts.operation) writeAttribute(w, attr);
  if (parts.job && parts.job.length > 0) {
    w.u8(TAG.JOB);
    for (const attr of parts.job) writeAttribute(w, attr);
  }
  w.u8(TAG.END_OF_ATTRIBUTES);
  return w.result();
}

// ---------------------------------------------------------------- decoding

class ByteReader {
  constructor(
    private readonly buf: Buffer,
    public offset = 0,
  ) {}
  need(n: number): void {
    if (this.offset + n > this.buf.length) throw new IppIncompleteError('IPP message is truncated');
  }
  u8(): number {
    this.need(1);
    return this.buf.readUInt8(this.offset++);
  }
  u16(): number {
    this.need(2);
    const v = this.buf.readUInt16BE(this.offset);
    this.offset += 2;
    return v;
  }
  i32(): number {
    this.need(4);
    const v = this.buf.readInt32BE(this.offset);
    this.offset += 4;
    return v;
  }
  bytes(n: number): Buffer {
    this.need(n);
    const v = this.buf.subarray(this.offset, this.offset + n);
    this.offset += n;
    return v;
  }
}

function decodeValue(tag: number, raw: Buffer): IppValue {
  const fixed = (n: number) => {
    if (raw.length !== n)
      throw new IppDecodeError(`value of tag 0x${tag.toString(16)} has length ${raw.length}`);
  };
  if (tag >= 0x10 && tag <= 0x1f) return { outOfBand: tag };
  if (tag === TAG.INTEGER || tag === TAG.ENUM) {
    fixed(4);
    return raw.readInt32BE(0);
  }
  if (tag === TAG.BOOLEAN) {
    fixed(1);
    return raw[0] !== 0;
  }
  if (tag === TAG.RESOLUTION) {
    fixed(9);
    return { x: raw.readInt32BE(0), y: raw.readInt32BE(4), units: raw[8] === 4 ? 'dpcm' : 'dpi' };
  }
  if (tag === TAG.RANGE_OF_INTEGER) {
    fixed(8);
    return { lower: raw.readInt32BE(0), upper: raw.readInt32BE(4) };
  }
  if (tag === TAG.DATE_TIME) return decodeDate(raw);
  if (tag === TAG.TEXT_WITH_LANGUAGE || tag === TAG.NAME_WITH_LANGUAGE) return decodeWithLanguage(raw);
  return raw.toString('utf8');
}

function decodeDate(raw: Buffer): Date {
  if (raw.length !== 11) throw new IppDecodeError(`dateTime has length ${raw.length}`);
  const sign = String.fromCharCode(raw[8] ?? 43) === '-' ? -1 : 1;
  const offsetMinutes = sign * ((raw[9] ?? 0) * 60 + (raw[10] ?? 0));
  const utc = Date.UTC(
    raw.readUInt16BE(0),
    (raw[2] ?? 1) - 1,
    raw[3],
    raw[4],
    raw[5],
    raw[6],
    (raw[7] ?? 0) * 100,
  );
  return new Date(utc - offsetMinutes * 60_000);
}

function decodeWithLanguage(raw: Buffer): string {
  const r = new ByteReader(raw);
  try {
    r.bytes(r.u16());
    return r.bytes(r.u16()).toString('utf8');
  } catch {
    throw new IppDecodeError('malformed textWithLanguage value');
  }
}

/** Reads the value after a tag and name; a begCollection reads the whole collection. */
function readValue(r: ByteReader, tag: number): IppValue {
  const raw = r.bytes(r.u16());
  return tag === TAG.BEGIN_COLLECTION ? readCollection(r) : decodeValue(tag, raw);
}

/** Reads collection members up to the matching endCollection. */
function readCollection(r: ByteReader): IppCollection {
  const members: IppAttribute[] = [];
  let current: IppAttribute | undefined;
  for (;;) {
    const tag = r.u8();
    const name = r.bytes(r.u16()).toString('utf8');
    if (tag === TAG.END_COLLECTION) {
      r.bytes(r.u16());
      return { members };
    }
    if (name !== '') throw new IppDecodeError('collection member with a name field');
    if (tag === TAG.MEMBER_NAME) {
      current = { tag: 0, name: r.bytes(r.u16()).toString('utf8'), values: [] };
      members.push(current);
      continue;
    }
    if (!current) throw new IppDecodeError('collection value before memberAttrName');
    const value = readValue(r, tag);
    if (current.tag === 0) current.tag = tag;
    current.values.push(value);
  }
}

function readGroups(r: ByteReader): IppGroup[] {
  const groups: IppGroup[] = [];
  let tag = r.u8();
  while (tag !== TAG.END_OF_ATTRIBUTES) {
    if (tag > 0x0f) throw new IppDecodeError(`expected a group tag, got 0x${tag.toString(16)}`);
    const group: IppGroup = { tag, attributes: [] };
    groups.push(group);
    tag = r.u8();
    while (tag > 0x0f) {
      const name = r.bytes(r.u16()).toString('utf8');
      const value = readValue(r, tag);
      const last = group.attributes[group.attributes.length - 1];
      if (name === '') {
        if (!last) throw new IppDecodeError('additional value without an attribute');
        last.values.push(value);
      } else {
        group.attributes.push({ tag, name, values: [value] });
      }
      tag = r.u8();
    }
  }
  return groups;
}

/**
 * Decodes a message from the start of `buf`. Returns it with `bodyOffset`, the index of the
 * first document byte. Throws IppIncompleteError when `buf` ends early, IppDecodeError on bad bytes.
 */
export function decodeMessage(buf: Buffer): IppMessage & { bodyOffset: number } {
  const r = new ByteReader(buf);
  const major = r.u8();
  const minor = r.u8();
  const code = r.u16();
  const requestId = r.i32();
  const groups = readGroups(r);
  return { version: { major, minor }, code, requestId, groups, bodyOffset: r.offset };
}
