/**
 * One running PrintJob on the client side: reads the chunked progress body line by line and
 * determines the final result — trailer X-FMP-Return first, else the in-band result line, else
 * the response header (a job that failed to start). Owned by whoever called printJob; iterating
 * to the end or calling result() consumes the body, abort() destroys it.
 */
import { isAscii } from 'node:buffer';
import { TextDecoder } from 'node:util';
import { decodeErrText, parseReturnCode, TPFM_HEADERS } from '../protocol/tpfm-codes.js';
import {
  ProgressLineSplitter,
  parseProgressLine,
  type TpfmProgressLine,
  type TpfmProgressType,
} from '../protocol/tpfm-progress.js';
import { PrintRelayError } from '../lib/errors.js';

/** A progress event of a running print. */
export type TpfmProgressEvent = Exclude<TpfmProgressLine, { kind: 'result' }>;

/** The final outcome of a PrintJob. */
export interface TpfmPrintResult {
  code: number;
  errText?: string;
  osError?: number;
  osErrText?: string;
  /** Where the code was read. */
  source: 'trailer' | 'body' | 'header';
}

interface ErrorFields {
  code?: number;
  errText?: string;
  osError?: number;
  osErrText?: string;
}

/** Reads X-FMP-Return, -ErrText, -OSError and -OSErrText out of a header or trailer record. */
export function readErrorFields(record: Record<string, string | string[] | undefined>): ErrorFields {
  const get = (name: string) => {
    const value = record[name.toLowerCase()];
    return Array.isArray(value) ? value[0] : value;
  };
  const fields: ErrorFields = {};
  const code = parseReturnCode(get(TPFM_HEADERS.return));
  if (code !== undefined) fields.code = code;
  if (get(TPFM_HEADERS.errText) !== undefined) fields.errText = decodeErrText(get(TPFM_HEADERS.errText));
  const osError = parseReturnCode(get(TPFM_HEADERS.osError));
  if (osError !== undefined) fields.osError = osError;
  if (get(TPFM_HEADERS.osErrText) !== undefined)
    fields.osErrText = decodeErrText(get(TPFM_HEADERS.osErrText));
  return fields;
}

/** See the file comment. */
export class PrintRun implements AsyncIterable<TpfmProgressEvent> {
  private inBandCode: number | undefined;
  private final: TpfmPrintResult | undefined;
  private consumed = false;

  constructor(
    private readonly body: AsyncIterable<Buffer> & { destroy(error?: Error): unknown },
    private readonly trailers: () => Record<string, string | string[] | undefined>,
    private readonly headerFields: ErrorFields,
    /** X-FMP-ProcId; undefined when printing did not start. */
    readonly procId: number | undefined,
    /** X-FMP-ProgressType; undefined with Progress=0 or on failure. */
    readonly progressType: TpfmProgressType | undefined,
  ) {}

  /** Yields progress events until the body ends; may be iterated once. */
  async *[Symbol.asyncIterator](): AsyncGenerator<TpfmProgressEvent> {
    if (this.consumed) throw new PrintRelayError('tpfm_protocol', 'PrintJob progress can be read only once');
    this.consumed = true;
    const splitter = new ProgressLineSplitter();
    const text = new ChunkText();
    for await (const chunk of this.body) {
      for (const line of splitter.push(text.of(chunk))) {
        const event = this.take(line);
        if (event) yield event;
      }
    }
    for (const line of splitter.push(text.end())) {
      const event = this.take(line);
      if (event) yield event;
    }
    for (const line of splitter.flush()) {
      const event = this.take(line);
      if (event) yield event;
    }
    this.final = this.decide();
  }

  /** The final result; drains remaining progress first. */
  async result(): Promise<TpfmPrintResult> {
    if (!this.consumed) for await (const _ of this) void _;
    if (!this.final) throw new PrintRelayError('tpfm_protocol', 'PrintJob stream ended before its result');
    return this.final;
  }

  /** Stops reading: the connection is dropped (the server is not told; use CancelPrintJob). */
  abort(): void {
    this.body.destroy();
  }

  private take(line: string): TpfmProgressEvent | undefined {
    const parsed = parseProgressLine(line);
    if (parsed?.kind === 'result') {
      this.inBandCode = parsed.code;
      return undefined;
    }
    return parsed;
  }

  private decide(): TpfmPrintResult {
    const trailer = readErrorFields(this.trailers());
    if (trailer.code !== undefined) return { ...trailer, code: trailer.code, source: 'trailer' };
    if (this.inBandCode !== undefined) return { code: this.inBandCode, source: 'body' };
    if (this.headerFields.code !== undefined) {
      return { ...this.headerFields, code: this.headerFields.code, source: 'header' };
    }
    throw new PrintRelayError('tpfm_protocol', 'PrintJob response carried no X-FMP-Return');
  }
}

/**
 * The text of a body's chunks: an ASCII chunk (every progress line is) is read as it is; from the
 * first other chunk on, a UTF-8 decoder reads the rest, so a character cut between two chunks
 * stays whole in the text (and in the error that names the line).
 */
export class ChunkText {
  private decoder: TextDecoder | undefined;

  /** The text of the next chunk. */
  of(chunk: Buffer): string {
    if (!this.decoder && isAscii(chunk)) return chunk.toString('latin1');
    this.decoder ??= new TextDecoder();
    return this.decoder.decode(chunk, { stream: true });
  }

  /** What the decoder still holds at the end of the body (an incomplete character). */
  end(): string {
    return this.decoder?.decode() ?? '';
  }
}
