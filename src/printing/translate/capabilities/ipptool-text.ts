/**
 * Parses the attribute listing of `ipptool -tv ... get-printer-attributes.test` (lines
 * `name (syntax) = value`, also as logged by other IPP tools with a leading `INFO:`) into
 * PrinterAttributes: integers as numbers, booleans, ranges as `{min, max}`, collections as
 * objects, 1setOf values as arrays, resolutions and enum names as strings. Used to record
 * fixtures from real printers and from ippeveprinter. Pure; nothing to clean up.
 */
import { ValidationError } from '../../../lib/errors.js';
import type { PrinterAttributes } from '../../printer-backend.js';

const LINE = /^\s*(?:INFO:\s*)?([a-z][a-z0-9-]*) \(([^)]+)\) =(?: (.*))?$/;
const SKIPPED = new Set(['no-value', 'unknown', 'unsupported', 'not-settable', 'delete-attribute']);

/** Splits at `separator` outside braces. */
function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '{') depth++;
    else if (ch === '}') depth--;
    else if (ch === separator && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

function memberValue(raw: string): unknown {
  if (raw.startsWith('{')) return parseCollection(raw);
  const items = splitTopLevel(raw, ',');
  const parsed = items.map((item) => {
    if (item.startsWith('{')) return parseCollection(item);
    if (/^-?\d+$/.test(item)) return Number(item);
    const range = /^(\d+)-(\d+)$/.exec(item);
    if (range) return { min: Number(range[1]), max: Number(range[2]) };
    if (item === 'true' || item === 'false') return item === 'true';
    return item;
  });
  return parsed.length === 1 ? parsed[0] : parsed;
}

/** Parses one `{name=value name={...}}` collection. */
function parseCollection(text: string): Record<string, unknown> {
  const inner = text.trim().replace(/^\{/, '').replace(/\}$/, '');
  const result: Record<string, unknown> = {};
  for (const member of splitTopLevel(inner, ' ')) {
    if (member === '') continue;
    const eq = member.indexOf('=');
    if (eq <= 0) throw new ValidationError('collection', `member "${member}" must be name=value`);
    result[member.slice(0, eq)] = memberValue(member.slice(eq + 1));
  }
  return result;
}

function scalar(syntax: string, raw: string): unknown {
  if (syntax === 'collection') return parseCollection(raw);
  if (syntax === 'integer' || syntax === 'enum') {
    const match = /^(-?\d+)/.exec(raw);
    return match ? Number(match[1]) : raw;
  }
  if (syntax === 'boolean') return raw === 'true';
  if (syntax === 'rangeOfInteger') {
    const match = /^(-?\d+)-(-?\d+)$/.exec(raw);
    return match ? { min: Number(match[1]), max: Number(match[2]) } : raw;
  }
  return raw;
}

function parseValue(syntaxText: string, raw: string): unknown {
  const setOf = syntaxText.startsWith('1setOf ');
  const syntax = setOf ? syntaxText.slice('1setOf '.length) : syntaxText;
  if (SKIPPED.has(syntax)) return undefined;
  if (!setOf) return scalar(syntax, raw);
  return splitTopLevel(raw, ',').map((item) => scalar(syntax, item));
}

/**
 * Parses ipptool-style attribute lines. Lines that are not attributes (test names, status
 * lines, request attributes before the `[PASS]` line) are ignored; when a `[PASS]` line is
 * present only the response after it is read. Throws a ValidationError when no attribute is found.
 */
export function parseIpptoolAttributes(text: string): PrinterAttributes {
  const lines = text.split(/\r?\n/);
  const passAt = lines.findIndex((line) => line.includes('[PASS]'));
  const attrs: PrinterAttributes = {};
  for (const line of lines.slice(passAt + 1)) {
    const match = LINE.exec(line);
    if (!match?.[1] || !match[2]) continue;
    const value = parseValue(match[2], match[3] ?? '');
    if (value !== undefined) attrs[match[1]] = value;
  }
  if (Object.keys(attrs).length === 0) {
    throw new ValidationError('ipptool output', 'must contain at least one "name (syntax) = value" line');
  }
  return attrs;
}
