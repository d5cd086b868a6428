/**
 * Admin overrides of a printer's capabilities: merging blob capability customs over defaults
 * (rule 1: a custom value replaces its default whole) and adjusting a PrintTicket to what the
 * admin allows (disabled trays, custom tray names, overridden papers, color and duplex switched
 * off). Pure; nothing to clean up.
 */
import {
  type BlobCapabilities,
  BlobOption,
  type SimplifiedCapabilities,
  type SimplifiedTray,
} from '../../../protocol/blob-capabilities.js';
import { CUSTOM_PAPER_ID } from '../../../protocol/paper-sizes.js';
import type { PrintTicket, TrayChoice } from '../../../protocol/print-ticket.js';

// The merge and the tray-name rule live in protocol/ so the emulator and the agent share them.
export {
  type CustomCapabilities,
  mergeCustomCapabilities,
  validateTrayNames,
} from '../../../protocol/capability-merge.js';

/** What the admin allows for a printer: merged simplified and blob capabilities. */
export interface EffectiveCapabilities {
  simplified: SimplifiedCapabilities;
  blob: BlobCapabilities;
}

export interface AdjustedTicket {
  ticket: PrintTicket;
  /** One line per option that was changed or dropped, naming the option and why. */
  warnings: string[];
}

function findTray(choice: TrayChoice, trays: SimplifiedTray[]): SimplifiedTray | undefined {
  if (choice.index !== undefined) return trays.find((t) => t.index === choice.index);
  const wanted = choice.name?.trim().toLowerCase();
  if (!wanted) return undefined;
  return (
    trays.find((t) => t.name?.toLowerCase() === wanted) ??
    trays.find((t) => t.original_name.toLowerCase() === wanted)
  );
}

function defaultTray(caps: EffectiveCapabilities): SimplifiedTray | undefined {
  const enabled = caps.simplified.trays.filter((t) => t.enabled);
  const preferred = caps.blob.trays.find((t) => t.default);
  return enabled.find((t) => t.index === preferred?.index) ?? enabled[0];
}

function adjustTray(ticket: PrintTicket, caps: EffectiveCapabilities, warnings: string[]): void {
  if (!ticket.tray) return;
  const label =
    ticket.tray.index !== undefined ? `index ${ticket.tray.index}` : `"${ticket.tray.name ?? ''}"`;
  const tray = findTray(ticket.tray, caps.simplified.trays);
  if (!tray) {
    warnings.push(`tray: ${label} is not a tray of this printer; the printer's default tray is used`);
    ticket.tray = undefined;
    return;
  }
  if (tray.enabled) {
    ticket.tray = { index: tray.index, name: tray.original_name };
    return;
  }
  const fallback = defaultTray(caps);
  warnings.push(
    `tray: ${label} is disabled by the admin; ${fallback ? `default tray "${fallback.original_name}" is used` : 'no tray is enabled, the printer chooses'}`,
  );
  ticket.tray = fallback ? { index: fallback.index, name: fallback.original_name } : undefined;
}

function adjustPaper(ticket: PrintTicket, caps: EffectiveCapabilities, warnings: string[]): void {
  const paper = ticket.paper;
  if (!paper) return;
  if (paper.id === CUSTOM_PAPER_ID && paper.width !== undefined && paper.length !== undefined) {
    if ((caps.blob.options & BlobOption.customPaper) !== 0) return;
  }
  const match = caps.blob.papers.find((p) => p.index === paper.id && p.index !== CUSTOM_PAPER_ID);
  if (match) {
    ticket.paper = { id: match.index, name: match.name };
    return;
  }
  const fallback = caps.blob.papers.find((p) => p.default) ?? caps.blob.papers[0];
  warnings.push(
    `paper: id ${paper.id} is not offered for this printer; ${fallback ? `default paper "${fallback.name}" is used` : "the printer's default is used"}`,
  );
  ticket.paper = fallback ? { id: fallback.index, name: fallback.name } : undefined;
}

function adjustModes(ticket: PrintTicket, caps: EffectiveCapabilities, warnings: string[]): void {
  if (ticket.color === true && !caps.simplified.color_supported) {
    warnings.push('color: color printing is not allowed on this printer; printed in monochrome');
    ticket.color = false;
  }
  if (ticket.duplex && ticket.duplex !== 'simplex' && !caps.simplified.duplex_supported) {
    warnings.push(`duplex: ${ticket.duplex} is not allowed on this printer; printed one-sided`);
    ticket.duplex = 'simplex';
  }
  const res = ticket.resolution;
  if (res && 'dpi' in res && caps.blob.resolutions.length > 0) {
    if (!caps.blob.resolutions.some((r) => r.value === res.dpi)) {
      warnings.push(`resolution: ${res.dpi} dpi is not offered; the printer's default is used`);
      ticket.resolution = undefined;
    }
  }
}

/** Adjusts a ticket to the printer's effective capabilities; the input ticket is not changed. */
export function applyCapabilityOverrides(ticket: PrintTicket, caps: EffectiveCapabilities): AdjustedTicket {
  const adjusted: PrintTicket = { ...ticket };
  const warnings: string[] = [];
  adjustTray(adjusted, caps, warnings);
  adjustPaper(adjusted, caps, warnings);
  adjustModes(adjusted, caps, warnings);
  for (const key of ['tray', 'paper', 'resolution'] as const) {
    if (adjusted[key] === undefined) delete adjusted[key];
  }
  return { ticket: adjusted, warnings };
}
