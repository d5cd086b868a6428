/**
 * PrintJob's chunked progress stream: one line per chunk, each ending in CRLF (counted in the
 * chunk size) — `n/total` for ProgressType Pages, `n%` for Percentage — then the in-band result
 * line `X-FMP-Return: <code>`. Pure: the splitter takes decoded text pieces however the network
 * cut them and hands back whole lines.
 */
import { ValidationError } from '../lib/errors.js';

/** X-FMP-ProgressType values. */
export type TpfmProgressType = 'Pages' | 'Percentage';

/** One parsed line of the progress stream. */
export type TpfmProgressLine =
  | { kind: 'pages'; page: number; total: number }
  | { kind: 'percent'; percent: number }
  | { kind: 'result'; code: number };

/** The data of one progress chunk, CRLF included. */
export function formatProgressChunk(line: Exclude<TpfmProgressLine, { kind: 'result' }>): string {
  if (line.kind === 'pages') {
    if (
      !Number.isSafeInteger(line.page) ||
      !Number.isSafeInteger(line.total) ||
      line.page < 0 ||
      line.total < 0
    ) {
      throw new ValidationError('progress', 'pages must be non-negative integers');
    }
    return `${line.page}/${line.total}\r\n`;
  }
  if (!Number.isInteger(line.percent) || line.percent < 0 || line.percent > 100) {
    throw new ValidationError('progress', 'percent must be an integer from 0 to 100');
  }
  return `${line.percent}%\r\n`;
}

/** The in-band final result line, CRLF included. */
export function formatResultLine(code: number): string {
  return `X-FMP-Return: ${code}\r\n`;
}

/** Parses one line (without its line end); undefined for a blank line. Throws on anything else. */
export function parseProgressLine(line: string): TpfmProgressLine | undefined {
  const text = line.trim();
  if (text === '') return undefined;
  const result = /^X-FMP-Return\s*:\s*(\d+)$/i.exec(text);
  if (result) return { kind: 'result', code: Number(result[1]) };
  const pages = /^(\d+)\s*\/\s*(\d+)$/.exec(text);
  if (pages) return { kind: 'pages', page: Number(pages[1]), total: Number(pages[2]) };
  const percent = /^(\d{1,3})\s*%?$/.exec(text);
  if (percent && Number(percent[1]) <= 100) return { kind: 'percent', percent: Number(percent[1]) };
  throw new ValidationError('progress', `unrecognised progress line "${text.slice(0, 40)}"`);
}

/** Collects text pieces and yields complete lines (CRLF or LF); call `flush()` at the end. */
export class ProgressLineSplitter {
  private pending = '';

  /** Adds a piece of text; returns the lines it completed. */
  push(text: string): string[] {
    this.pending += text;
    const parts = this.pending.split(/\r?\n/);
    this.pending = parts.pop() ?? '';
    return parts;
  }

  /** The last unterminated line, if any (a proxy may drop the final CRLF). */
  flush(): string[] {
    const rest = this.pending;
    this.pending = '';
    return rest.trim() === '' ? [] : [rest];
  }
}
