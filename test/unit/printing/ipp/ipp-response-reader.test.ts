/**
 * The HTTP answer reader of the IPP transport: every framing a printer uses (Content-Length,
 * chunked, to the end of the connection), keep-alive rules, interim answers, and a clear error for
 * anything else. Each good answer is also fed cut at every byte, and byte by byte.
 */
import { describe, expect, it } from 'vitest';
import {
  type HttpAnswer,
  HttpAnswerError,
  HttpAnswerReader,
} from '../../../../src/printing/ipp/ipp-response-reader.js';
import { requestHead } from '../../../../src/printing/ipp/ipp-request-head.js';
import { parseIppTarget } from '../../../../src/printing/ipp/ipp-target.js';

const LIMIT = 1024;

/** Feeds `parts` in order; the answer when the last part completes it (an earlier one is an error). */
function feed(parts: Buffer[], limit = LIMIT): HttpAnswer | undefined {
  const reader = new HttpAnswerReader(limit);
  for (let i = 0; i < parts.length; i++) {
    const answer = reader.push(parts[i] as Buffer);
    if (answer && i < parts.length - 1) throw new Error(`complete after part ${i} of ${parts.length}`);
    if (answer) return answer;
  }
  return undefined;
}

const body = Buffer.from([0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x03]);

const cases: { name: string; wire: Buffer; expected: Omit<HttpAnswer, 'body'> & { body: Buffer } }[] = [
  {
    name: 'Content-Length (ippeveprinter)',
    wire: Buffer.concat([
      Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: application/ipp\r\nContent-Length: 9\r\n\r\n'),
      body,
    ]),
    expected: { status: 200, body, keepAlive: true, keepAliveMs: undefined },
  },
  {
    name: 'chunked, with a chunk extension and a trailer, Keep-Alive timeout',
    wire: Buffer.concat([
      Buffer.from(
        'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nKeep-Alive: timeout=10\r\nConnection: Keep-Alive\r\n\r\n4;x=y\r\n',
      ),
      body.subarray(0, 4),
      Buffer.from('\r\n5\r\n'),
      body.subarray(4),
      Buffer.from('\r\n0\r\nX-Trailer: 1\r\n\r\n'),
    ]),
    expected: { status: 200, body, keepAlive: true, keepAliveMs: 10_000 },
  },
  {
    name: 'a 100 Continue before the answer, Connection: close',
    wire: Buffer.concat([
      Buffer.from(
        'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 9\r\n\r\n',
      ),
      body,
    ]),
    expected: { status: 200, body, keepAlive: false, keepAliveMs: undefined },
  },
  {
    name: 'HTTP/1.0 with a length: not kept',
    wire: Buffer.concat([Buffer.from('HTTP/1.0 200 OK\r\nContent-Length: 9\r\n\r\n'), body]),
    expected: { status: 200, body, keepAlive: false, keepAliveMs: undefined },
  },
  {
    name: 'an empty answer of another status',
    wire: Buffer.from('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n'),
    expected: { status: 401, body: Buffer.alloc(0), keepAlive: true, keepAliveMs: undefined },
  },
];

describe('HttpAnswerReader', () => {
  for (const { name, wire, expected } of cases) {
    it(`reads ${name}, whole, cut at every byte, and byte by byte`, () => {
      expect(feed([wire])).toEqual(expected);
      for (let cut = 1; cut < wire.length; cut++) {
        expect(feed([wire.subarray(0, cut), wire.subarray(cut)]), `cut at ${cut}`).toEqual(expected);
      }
      const bytes = [...wire].map((byte) => Buffer.from([byte]));
      expect(feed(bytes)).toEqual(expected);
    });
  }

  it('takes a body with neither length nor chunking as running to the end of the connection', () => {
    const reader = new HttpAnswerReader(LIMIT);
    expect(
      reader.push(Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: application/ipp\r\n\r\n')),
    ).toBeUndefined();
    expect(reader.push(body)).toBeUndefined();
    expect(reader.end()).toEqual({ status: 200, body, keepAlive: false, keepAliveMs: undefined });
  });

  it('says whether any byte came when the connection ends before the answer is complete', () => {
    const none = new HttpAnswerReader(LIMIT);
    expect(none.started).toBe(false);
    expect(() => none.end()).toThrow(new HttpAnswerError('connection closed'));
    const some = new HttpAnswerReader(LIMIT);
    some.push(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n\x02\x00'));
    expect(some.started).toBe(true);
    expect(() => some.end()).toThrow(new HttpAnswerError('connection closed mid-response'));
  });

  const refused: [string, string, string][] = [
    [
      'not HTTP',
      '220 garbage service ready\r\n',
      'not an HTTP answer (it starts "220 garbage service ready")',
    ],
    ['HTTP/2 preface', 'PRI * HTTP/2.0\r\n', 'not an HTTP answer (it starts "PRI * HTTP/2.0")'],
    ['a bad status line', 'HTTP/1.1 2000 OK\r\n\r\n', 'not an HTTP/1.x status line: "HTTP/1.1 2000 OK"'],
    ['a header line without a colon', 'HTTP/1.1 200 OK\r\nbroken\r\n\r\n', 'bad header line "broken"'],
    ['a bad Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n', 'bad Content-Length "-1"'],
    [
      'two Content-Lengths that differ',
      'HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n',
      'bad Content-Length "2"',
    ],
    [
      'an unknown transfer coding',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n',
      'unsupported Transfer-Encoding "gzip"',
    ],
    [
      'a bad chunk size',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
      'bad chunk-size line "zz"',
    ],
    [
      'a chunk without its CRLF',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab',
      'chunk not followed by CRLF',
    ],
    [
      'bytes after the answer',
      'HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nab',
      'bytes after the end of the answer',
    ],
    [
      'bytes after a chunked answer',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nHTTP',
      'bytes after the end of the answer',
    ],
  ];
  for (const [name, wire, message] of refused) {
    it(`refuses ${name}`, () => {
      expect(() => feed([Buffer.from(wire, 'latin1')])).toThrow(new HttpAnswerError(message));
    });
  }

  it('refuses a body over the limit, by length or in chunks, and a head over 64 KiB', () => {
    const big = Buffer.alloc(LIMIT + 1);
    const byLength = Buffer.concat([
      Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${big.length}\r\n\r\n`),
      big,
    ]);
    expect(() => feed([byLength])).toThrow(new HttpAnswerError('response larger than 1024 bytes'));
    const chunked = Buffer.concat([
      Buffer.from(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${big.length.toString(16)}\r\n`),
      big,
    ]);
    expect(() => feed([chunked], LIMIT)).toThrow(HttpAnswerError);
    const head = Buffer.from(`HTTP/1.1 200 OK\r\nX-Long: ${'a'.repeat(70 * 1024)}`);
    expect(() => feed([head])).toThrow(new HttpAnswerError('HTTP head larger than 64 KiB'));
  });
});

describe('requestHead', () => {
  it('writes the POST head with the exact length, and Connection: close only when asked', () => {
    const target = parseIppTarget('ipp://printer.local:8631/ipp/print?tls-verify=false');
    expect(requestHead(target, 1234, false).toString()).toBe(
      'POST /ipp/print HTTP/1.1\r\nHost: printer.local:8631\r\nContent-Type: application/ipp\r\nContent-Length: 1234\r\n\r\n',
    );
    expect(requestHead(target, 0, true).toString()).toBe(
      'POST /ipp/print HTTP/1.1\r\nHost: printer.local:8631\r\nContent-Type: application/ipp\r\nContent-Length: 0\r\nConnection: close\r\n\r\n',
    );
    expect(requestHead(parseIppTarget('ipp://[::1]/'), 1, false).toString()).toContain('Host: [::1]:631\r\n');
  });
});
