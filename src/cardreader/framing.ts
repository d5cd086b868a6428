/**
 * How a byte stream of a reader is cut into card frames: by line end (CR and/or LF), between
 * STX (0x02) and ETX (0x03), or in fixed-length records. Pure; readers feed bytes in whatever
 * pieces the device sent and get whole frames (as latin1 text, control characters trimmed).
 */
import { ValidationError } from '../lib/errors.js';

/** Framing as configured in a profile or a reader URI. */
export type FramingSpec =
  | { type: 'line' }
  | { type: 'stx-etx' /** bytes after ETX to skip (checksum), default 0 */; trailer?: number }
  | { type: 'fixed'; length: number };

/** Cuts bytes into frames; keeps partial frames between calls. */
export interface Framer {
  push(bytes: Uint8Array): string[];
}

const text = (bytes: number[]) => String.fromCharCode(...bytes).replace(/[\x00-\x1f\x7f]/g, '');

class LineFramer implements Framer {
  private current: number[] = [];
  push(bytes: Uint8Array): string[] {
    const frames: string[] = [];
    for (const byte of bytes) {
      if (byte === 0x0a || byte === 0x0d) {
        const frame = text(this.current);
        this.current = [];
        if (frame) frames.push(frame);
      } else this.current.push(byte);
    }
    return frames;
  }
}

class StxEtxFramer implements Framer {
  private current: number[] | undefined;
  private skip = 0;
  constructor(private readonly trailer: number) {}
  push(bytes: Uint8Array): string[] {
    const frames: string[] = [];
    for (const byte of bytes) {
      if (this.skip > 0) this.skip--;
      else if (byte === 0x02) this.current = [];
      else if (byte === 0x03 && this.current) {
        const frame = text(this.current);
        this.current = undefined;
        this.skip = this.trailer;
        if (frame) frames.push(frame);
      } else this.current?.push(byte);
    }
    return frames;
  }
}

class FixedFramer implements Framer {
  private current: number[] = [];
  constructor(private readonly length: number) {}
  push(bytes: Uint8Array): string[] {
    const frames: string[] = [];
    for (const byte of bytes) {
      this.current.push(byte);
      if (this.current.length === this.length) {
        const frame = text(this.current);
        this.current = [];
        if (frame) frames.push(frame);
      }
    }
    return frames;
  }
}

/** Makes a framer for a spec. */
export function createFramer(spec: FramingSpec): Framer {
  if (spec.type === 'line') return new LineFramer();
  if (spec.type === 'stx-etx') return new StxEtxFramer(spec.trailer ?? 0);
  return new FixedFramer(spec.length);
}

/** Parses the `framing=` text of a reader URI: `line`, `stx-etx`, `stx-etx:1`, `fixed:10`. */
export function parseFraming(value: string): FramingSpec {
  const [name, argument] = value.split(':');
  const count = argument === undefined ? undefined : Number(argument);
  if (name === 'line' && argument === undefined) return { type: 'line' };
  if (name === 'stx-etx' && (count === undefined || (Number.isInteger(count) && count >= 0 && count <= 4))) {
    return count === undefined ? { type: 'stx-etx' } : { type: 'stx-etx', trailer: count };
  }
  if (name === 'fixed' && count !== undefined && Number.isInteger(count) && count >= 1 && count <= 256) {
    return { type: 'fixed', length: count };
  }
  throw new ValidationError('framing', `"${value}" must be line, stx-etx[:0-4] or fixed:<1-256>`);
}
