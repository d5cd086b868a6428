/**
 * Copy events an embedded device app posts (one finished copy run each): their validation
 * (pure; every broken rule named at once) and CopyEventCounter, the counter source they feed —
 * running totals per station that a copy session reads like device counters. The app reports
 * only copies, so released print jobs are not subtracted from these counts.
 */
import { ValidationError, ValidationErrors } from '../../lib/errors.js';
import type { CounterSnapshot } from './copy-counting.js';
import type { CounterSource } from './counter-source.js';

/** One finished copy run as the device app reports it. */
export interface CopyEvent {
  pages: number;
  colorPages?: number;
  sheets?: number;
  duplex?: boolean;
  copies?: number;
  paperId?: number;
  failed?: boolean;
}

const LIMIT = 1_000_000;
const KNOWN = new Set(['pages', 'color_pages', 'sheets', 'duplex', 'copies', 'paper_id', 'status']);

function int(
  body: Record<string, unknown>,
  name: string,
  min: number,
  max: number,
  errors: ValidationError[],
) {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max) return value;
  errors.push(new ValidationError(name, `must be an integer from ${min} to ${max}`));
  return undefined;
}

/** Validates a posted body; throws ValidationErrors naming every broken rule. */
export function parseCopyEvent(body: unknown): CopyEvent {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new ValidationErrors([new ValidationError('body', 'must be a JSON object')]);
  }
  const b = body as Record<string, unknown>;
  const errors: ValidationError[] = [];
  for (const key of Object.keys(b))
    if (!KNOWN.has(key)) errors.push(new ValidationError(key, 'is not a field of a copy event'));
  const pages = int(b, 'pages', 1, LIMIT, errors);
  if (b.pages === undefined) errors.push(new ValidationError('pages', 'is required'));
  const colorPages = int(b, 'color_pages', 0, LIMIT, errors);
  if (colorPages !== undefined && pages !== undefined && colorPages > pages)
    errors.push(new ValidationError('color_pages', 'must be at most pages'));
  const sheets = int(b, 'sheets', 1, LIMIT, errors);
  const copies = int(b, 'copies', 1, 9999, errors);
  const paperId = int(b, 'paper_id', 1, 32767, errors);
  if (b.duplex !== undefined && typeof b.duplex !== 'boolean')
    errors.push(new ValidationError('duplex', 'must be true or false'));
  if (b.status !== undefined && b.status !== 'succeeded' && b.status !== 'failed')
    errors.push(new ValidationError('status', 'must be succeeded or failed'));
  if (errors.length > 0) throw new ValidationErrors(errors);
  return {
    pages: pages as number,
    ...(colorPages !== undefined ? { colorPages } : {}),
    ...(sheets !== undefined ? { sheets } : {}),
    ...(b.duplex !== undefined ? { duplex: b.duplex as boolean } : {}),
    ...(copies !== undefined ? { copies } : {}),
    ...(paperId !== undefined ? { paperId } : {}),
    ...(b.status === 'failed' ? { failed: true } : {}),
  };
}

/** Running totals of one station's copy events; reading never fails. */
export class CopyEventCounter implements CounterSource {
  readonly kind = 'http' as const;
  readonly includesReleased = false;
  private snapshot: CounterSnapshot = { impressions: 0, color: 0, sheets: 0, duplexSheets: 0 };

  /** Adds one copy run. */
  add(event: CopyEvent): void {
    const s = this.snapshot;
    const sheets = event.sheets ?? (event.duplex ? Math.ceil(event.pages / 2) : event.pages);
    this.snapshot = {
      impressions: s.impressions + event.pages,
      color: (s.color ?? 0) + (event.colorPages ?? 0),
      sheets: (s.sheets ?? 0) + sheets,
      duplexSheets: (s.duplexSheets ?? 0) + (event.duplex ? sheets : 0),
      ...(event.copies !== undefined ? { copies: event.copies } : {}),
      ...(event.paperId !== undefined ? { paperId: event.paperId } : {}),
      ...(event.failed ? { failed: true } : {}),
    };
  }

  async read(): Promise<CounterSnapshot> {
    return { ...this.snapshot };
  }

  async close(): Promise<void> {}
}
