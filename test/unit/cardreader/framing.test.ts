import { describe, expect, it } from 'vitest';
import { createFramer, parseFraming } from '../../../src/cardreader/framing.js';

const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'latin1'));

describe('framing', () => {
  it('cuts lines on CR, LF or CRLF across arbitrary pieces', () => {
    const framer = createFramer({ type: 'line' });
    expect(framer.push(bytes('04A1'))).toEqual([]);
    expect(framer.push(bytes('B2\r\n1234\r'))).toEqual(['04A1B2', '1234']);
    expect(framer.push(bytes('\n9\n'))).toEqual(['9']);
  });
  it('takes STX/ETX frames, skips noise between frames and the checksum trailer', () => {
    const framer = createFramer({ type: 'stx-etx', trailer: 1 });
    expect(framer.push(bytes('noise\x020F00AB12CD\r\n\x03'))).toEqual(['0F00AB12CD']);
    expect(framer.push(bytes('\x03\x02ABC'))).toEqual([]);
    expect(framer.push(bytes('\x03Z'))).toEqual(['ABC']);
  });
  it('cuts fixed-length records', () => {
    const framer = createFramer({ type: 'fixed', length: 4 });
    expect(framer.push(bytes('123456'))).toEqual(['1234']);
    expect(framer.push(bytes('78'))).toEqual(['5678']);
  });
  it.each([
    ['line', { type: 'line' }],
    ['stx-etx', { type: 'stx-etx' }],
    ['stx-etx:2', { type: 'stx-etx', trailer: 2 }],
    ['fixed:10', { type: 'fixed', length: 10 }],
  ])('parses %s', (text, spec) => {
    expect(parseFraming(text)).toEqual(spec);
  });
  it.each(['fixed', 'fixed:0', 'stx-etx:9', 'lines'])('refuses %s', (text) => {
    expect(() => parseFraming(text)).toThrow('framing');
  });
});
