/**
 * PrintTicket -> the argument list of `lp`. The ticket is first checked against the queue's own
 * IPP attributes by translate/ticket-to-ipp.ts (so an option the queue cannot honour is dropped
 * and reported, exactly as for ipp:// printers); the resulting job template attributes are then
 * written the way `lp -o name=value` spells them (CUPS's cupsParseOptions syntax, collections as
 * `{member=value ...}`). Pure and table-tested; nothing to clean up.
 */
import { ValidationError } from '../../lib/errors.js';
import type { PrintTicket } from '../../protocol/print-ticket.js';
import type { IppAttribute, IppValue } from '../ipp/ipp-codec.js';
import { isCollection } from '../ipp/ipp-codec.js';
import type { PrinterAttributes } from '../printer-backend.js';
import { type DroppedOption, ticketToIpp } from '../translate/ticket-to-ipp.js';
import type { CupsTarget } from './cups-uri.js';

/** What `lp` is called with (without the document path) and what the queue could not take. */
export interface LpCommand {
  /** Arguments in order, unquoted (the caller quotes them for whatever runs lp). */
  args: string[];
  dropped: DroppedOption[];
}

/** The job's identity for lp -t / -U. */
export interface LpJobInfo {
  jobName: string;
  userName: string;
}

/** The lp arguments for one job on one queue. */
export function lpCommand(
  target: CupsTarget,
  job: LpJobInfo,
  ticket: PrintTicket,
  queue: PrinterAttributes,
): LpCommand {
  // -h first: lp looks the destination up while it parses -d.
  const args = target.explicitServer ? ['-h', `${target.host}:${target.port}`] : [];
  args.push('-d', target.queue);
  args.push('-t', printable('jobName', job.jobName), '-U', printable('userName', job.userName));
  const { attributes, dropped } = ticketToIpp(ticket, queue);
  for (const attribute of attributes) args.push(...lpOption(attribute));
  return { args, dropped };
}

/** One job template attribute as lp arguments: copies as `-n N`, everything else as `-o name=value`. */
export function lpOption(attribute: IppAttribute): string[] {
  if (attribute.name === 'copies' && typeof attribute.values[0] === 'number')
    return ['-n', String(attribute.values[0])];
  return ['-o', `${attribute.name}=${attribute.values.map(optionValue).join(',')}`];
}

/** One IPP value in cupsParseOptions syntax. */
export function optionValue(value: IppValue): string {
  if (typeof value === 'string') return quoteIfNeeded(value);
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value instanceof Date) return value.toISOString();
  if (isCollection(value)) {
    const members = value.members.map((m) => `${m.name}=${m.values.map(optionValue).join(',')}`);
    return `{${members.join(' ')}}`;
  }
  if ('lower' in value)
    return value.lower === value.upper ? String(value.lower) : `${value.lower}-${value.upper}`;
  if ('units' in value) {
    const units = value.units === 'dpi' ? 'dpi' : 'dpcm';
    return value.x === value.y ? `${value.x}${units}` : `${value.x}x${value.y}${units}`;
  }
  throw new ValidationError('ticket', 'out-of-band values cannot be sent as lp options');
}

function quoteIfNeeded(text: string): string {
  if (!/[\s,{}'"\\]/.test(text)) return text;
  return `"${text.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

function printable(field: string, text: string): string {
  const cleaned = text.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  if (cleaned.length === 0) throw new ValidationError(field, 'must not be empty');
  return cleaned.slice(0, 255);
}
