/**
 * The print ticket: the options of a /sfapi/ Print request after parsing and validation, in one
 * normalized shape. The emulator builds it from the request (protocol/print-request.ts), sends
 * it to the connector inside a job offer, and the agent turns it into printer job attributes
 * (printing/translate/). Units: lengths in tenths of a millimetre, as the spec's paperwidth.
 */
export type DuplexMode = 'simplex' | 'long-edge' | 'short-edge';
export type Orientation = 'portrait' | 'landscape';

export interface PaperChoice {
  /** Desktop paper id (1 Letter, 9 A4, ..., 256 custom). */
  id: number;
  /** Paper name when known (A4, Letter, ...). */
  name?: string;
  /** Custom size only (id 256): width and length in tenths of a millimetre. */
  width?: number;
  length?: number;
}

export interface TrayChoice {
  /** Tray index from the printer properties (defaultsource); wins over the name. */
  index?: number;
  /** Tray name (trayname). */
  name?: string;
}

export interface PageRange {
  from: number;
  /** Inclusive; equal to `from` for a single page. */
  to: number;
}

export interface PrintTicket {
  copies: number;
  /** Absent: the printer's default. */
  color?: boolean;
  duplex?: DuplexMode;
  orientation?: Orientation;
  paper?: PaperChoice;
  tray?: TrayChoice;
  pageRanges?: PageRange[];
  /** Dots per inch, or a quality word the printer offers (for example 'Auto', 'draft'). */
  resolution?: { dpi: number } | { quality: string };
  collate?: boolean;
  locale?: string;
}

/** A ticket with every option at the printer's default. */
export const defaultTicket: PrintTicket = { copies: 1 };
