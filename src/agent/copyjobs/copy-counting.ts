/**
 * Counting what a device produced during a card session. Pure. Counters are read at session
 * start, while it runs and at its end; each reading adds its growth since the one before
 * (a counter that went backwards, a device restarted, adds nothing and becomes the new base).
 * Pages of released print jobs are subtracted from counter growth (they are the user's print
 * jobs, already accounted for by the cloud); sources that report only copies (the device app)
 * are not reduced. The result becomes the local job's parameters.
 */
import type { LocalJobFields } from '../../protocol/tpfm-local-job.js';

/** One reading of a device's counters; optional counters are those the device has. */
export interface CounterSnapshot {
  /** Impressions (pages) since the device was made. */
  impressions: number;
  /** Colour impressions. */
  color?: number;
  /** Sheets. */
  sheets?: number;
  /** Two-sided sheets. */
  duplexSheets?: number;
  /** Copies of the latest copy run (device app only). */
  copies?: number;
  /** Paper of the latest copy run (device app only). */
  paperId?: number;
  /** The latest copy run failed (device app only). */
  failed?: boolean;
}

/** Growth of each counter over a session. */
export interface SessionTotals {
  impressions: number;
  color?: number;
  sheets?: number;
  duplexSheets?: number;
}

const GROWING = ['impressions', 'color', 'sheets', 'duplexSheets'] as const;

/** Adds the growth from `prev` to `next` to `totals` (a new object; counters both readings have). */
export function accumulate(
  totals: SessionTotals,
  prev: CounterSnapshot,
  next: CounterSnapshot,
): SessionTotals {
  const out: SessionTotals = { ...totals };
  for (const key of GROWING) {
    const [a, b] = [prev[key], next[key]];
    if (a === undefined || b === undefined) continue;
    out[key] = (out[key] ?? 0) + Math.max(0, b - a);
  }
  return out;
}

/** Pages of released print jobs during the session. */
export interface ReleasedPages {
  pages: number;
}

/** What the local job records besides counts. */
export interface CopyDefaults {
  paperId: number;
}

/**
 * The local job's parameters for a session, or undefined when it produced no copy. Colour,
 * sheet and duplex counts are given only when the device has those counters; with released
 * jobs in the session, their colour pages, sheets and two-sided sheets cannot be told apart
 * from the copies' and are left out (colour stays when no colour page was made at all).
 */
export function copyFields(
  totals: SessionTotals,
  released: ReleasedPages,
  latest: CounterSnapshot,
  defaults: CopyDefaults,
): LocalJobFields | undefined {
  const pages = Math.max(0, totals.impressions - released.pages);
  if (pages === 0) return undefined;
  const fields: LocalJobFields = {
    Copies: latest.copies ?? 1,
    PaperId: latest.paperId ?? defaults.paperId,
    TotalPrintedPages: pages,
  };
  // Released jobs' colour pages are unknown: colour is exact without them, or when none grew.
  if (totals.color !== undefined && (released.pages === 0 || totals.color === 0)) {
    const color = Math.min(pages, totals.color);
    fields.TotalPrintedColorPages = color;
    fields.Color = color > 0 ? 1 : 0;
  }
  if (released.pages === 0 && totals.sheets !== undefined) fields.TotalPrintedSheets = totals.sheets;
  if (released.pages === 0 && totals.duplexSheets !== undefined)
    fields.Duplex = totals.duplexSheets > 0 ? 1 : 0;
  return fields;
}
