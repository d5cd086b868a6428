/**
 * Decoders of USB HID card-reader reports. Pure.
 * - Keyboard wedge: 8-byte boot keyboard reports (modifiers, reserved, up to six usage codes);
 *   each newly pressed key is typed, Enter (or Tab) ends a card number.
 * - Vendor raw reports: a length byte and the card's UID bytes at profile-given offsets; a
 *   length of zero means the card left the field.
 */

const SHIFT = 0x02 | 0x20;
const digits = '1234567890';
const symbols: Record<number, [string, string]> = {
  44: [' ', ' '],
  45: ['-', '_'],
  46: ['=', '+'],
  47: ['[', '{'],
  48: [']', '}'],
  51: [';', ':'],
  54: [',', '<'],
  55: ['.', '>'],
  56: ['/', '?'],
};
const keypad = '1234567890';

/** The character of a usage code (undefined for keys that type nothing). */
export function usageToChar(usage: number, shift: boolean): string | undefined {
  if (usage >= 0x04 && usage <= 0x1d) {
    const letter = String.fromCharCode(0x61 + usage - 0x04);
    return shift ? letter.toUpperCase() : letter;
  }
  if (usage >= 0x1e && usage <= 0x27) return shift ? '!@#$%^&*()'[usage - 0x1e] : digits[usage - 0x1e];
  if (usage >= 0x59 && usage <= 0x62) return keypad[usage - 0x59];
  const symbol = symbols[usage];
  return symbol ? symbol[shift ? 1 : 0] : undefined;
}

const ENTER_KEYS = new Set([0x28, 0x58, 0x2b]);

/** Turns a stream of boot keyboard reports into typed card numbers. */
export class KeyboardReportDecoder {
  private pressed = new Set<number>();
  private typed = '';

  /** Feeds one report; returns the card number it completed, if any. */
  push(report: Uint8Array | readonly number[]): string | undefined {
    const bytes = Array.from(report);
    // Some readers prefix a report id; a 9-byte report drops it.
    const keys = bytes.length === 9 ? bytes.slice(1) : bytes;
    const shift = ((keys[0] ?? 0) & SHIFT) !== 0;
    const now = new Set(keys.slice(2, 8).filter((k) => k > 0x03));
    let completed: string | undefined;
    for (const usage of now) {
      if (this.pressed.has(usage)) continue;
      if (ENTER_KEYS.has(usage)) {
        if (this.typed) completed = this.typed;
        this.typed = '';
      } else {
        this.typed += usageToChar(usage, shift) ?? '';
      }
    }
    this.pressed = now;
    return completed;
  }
}

/** Where the UID sits in a vendor raw report. */
export interface RawReportLayout {
  /** Offset of the byte holding the UID length in bytes. */
  lengthOffset: number;
  /** Offset of the first UID byte. */
  dataOffset: number;
}

/** The outcome of one raw report. */
export type RawReportEvent = { kind: 'card'; uid: string } | { kind: 'removed' } | { kind: 'ignored' };

/** Decodes one vendor raw report into an upper-case hex UID, a removal, or nothing. */
export function decodeRawReport(
  report: Uint8Array | readonly number[],
  layout: RawReportLayout,
): RawReportEvent {
  const bytes = Array.from(report);
  const length = bytes[layout.lengthOffset];
  if (length === undefined) return { kind: 'ignored' };
  if (length === 0) return { kind: 'removed' };
  const uid = bytes.slice(layout.dataOffset, layout.dataOffset + length);
  if (uid.length < length) return { kind: 'ignored' };
  return {
    kind: 'card',
    uid: uid
      .map((b) => b.toString(16).padStart(2, '0'))
      .join('')
      .toUpperCase(),
  };
}
