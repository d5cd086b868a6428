/**
 * Allow and deny lists for discovered printers: glob patterns (`*` any run of characters, `?`
 * one character, case-insensitive) matched against the printer's name AND its URI. A printer is
 * kept when the allow list is empty or one allow pattern matches its name or URI, and no deny
 * pattern matches either. Pure and table-tested; nothing to clean up.
 */
import { ValidationError } from '../../lib/errors.js';

/** The lists; both optional. */
export interface PrinterFilter {
  allow?: string[];
  deny?: string[];
}

/** A glob as an anchored, case-insensitive RegExp; ValidationError naming `field` for an empty pattern. */
export function globToRegExp(pattern: string, field = 'pattern'): RegExp {
  if (pattern.trim().length === 0) throw new ValidationError(field, 'glob pattern must not be empty');
  const body = [...pattern]
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`, 'is');
}

/** True when any pattern matches the name or the URI. */
export function matchesAny(patterns: string[], name: string, uri: string, field = 'pattern'): boolean {
  return patterns.some((p) => {
    const re = globToRegExp(p, field);
    return re.test(name) || re.test(uri);
  });
}

/** Whether a printer passes the allow and deny lists. */
export function printerAllowed(printer: { name: string; uri: string }, filter: PrinterFilter): boolean {
  const allow = filter.allow ?? [];
  if (allow.length > 0 && !matchesAny(allow, printer.name, printer.uri, 'allow')) return false;
  return !matchesAny(filter.deny ?? [], printer.name, printer.uri, 'deny');
}

/** Checks every pattern up front, all errors at once (for CLI flags and config). */
export function validatePrinterFilter(filter: PrinterFilter): ValidationError[] {
  const errors: ValidationError[] = [];
  for (const [field, list] of [
    ['allow', filter.allow ?? []],
    ['deny', filter.deny ?? []],
  ] as const) {
    list.forEach((p, i) => {
      if (p.trim().length === 0)
        errors.push(new ValidationError(`${field}[${i}]`, 'glob pattern must not be empty'));
    });
  }
  return errors;
}
