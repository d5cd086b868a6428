/**
 * Reader profiles: data files in drivers/cardreaders/*.json describing reader families (USB
 * ids, connection kind, serial settings, framing, raw report layout, default conversion chain).
 * Validation is pure (`parseReaderProfile`); loading reads a directory. Every problem names file
 * and field.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ValidationError, ValidationErrors } from '../lib/errors.js';
import { packageRoot } from '../lib/package-root.js';
import type { FramingSpec } from './framing.js';
import type { RawReportLayout } from './hid/hid-report-decoder.js';
import { isBaudRate } from './serial/baud-rates.js';
import { parseTransformChain } from './transform.js';

/** One reader family. */
export interface ReaderProfile {
  id: string;
  name: string;
  vendor: string;
  usb: { vendorId: string; productId: string }[];
  connection: 'serial' | 'hid-keyboard' | 'hid-raw';
  /** Serial line settings; a `baud` parameter in the reader URI overrides them. */
  serial?: { baudRate: number };
  framing?: FramingSpec;
  raw?: RawReportLayout;
  /** Default conversion chain; a station's own chain replaces it. */
  transforms: string[];
  notes?: string;
}

const connections = ['serial', 'hid-keyboard', 'hid-raw'] as const;

function fail(errors: ValidationError[], file: string, field: string, rule: string): void {
  errors.push(new ValidationError(`${file}: ${field}`, rule));
}

function checkUsb(value: unknown, file: string, errors: ValidationError[]): void {
  if (!Array.isArray(value)) {
    fail(errors, file, 'usb', 'must be a list of { vendorId, productId }');
    return;
  }
  value.forEach((entry: { vendorId?: unknown; productId?: unknown }, i) => {
    for (const key of ['vendorId', 'productId'] as const) {
      if (typeof entry?.[key] !== 'string' || !/^[0-9a-f]{4}$/i.test(entry[key] as string)) {
        fail(errors, file, `usb[${i}].${key}`, 'must be four hex digits');
      }
    }
  });
}

/** Validates one profile object; throws ValidationErrors with every problem. */
export function parseReaderProfile(data: unknown, file: string): ReaderProfile {
  const errors: ValidationError[] = [];
  const p = (data ?? {}) as Record<string, unknown>;
  for (const key of ['id', 'name', 'vendor'] as const) {
    if (typeof p[key] !== 'string' || p[key] === '') fail(errors, file, key, 'must be a non-empty string');
  }
  if (typeof p.id === 'string' && !/^[a-z0-9-]+$/.test(p.id)) fail(errors, file, 'id', 'must be kebab-case');
  if (!connections.includes(p.connection as never)) {
    fail(errors, file, 'connection', `must be one of ${connections.join(', ')}`);
  }
  checkUsb(p.usb, file, errors);
  if (!Array.isArray(p.transforms)) fail(errors, file, 'transforms', 'must be a list of conversion steps');
  else {
    try {
      parseTransformChain(p.transforms as string[]);
    } catch (error) {
      fail(errors, file, 'transforms', (error as Error).message);
    }
  }
  if (p.serial !== undefined && !isBaudRate((p.serial as { baudRate?: unknown } | null)?.baudRate)) {
    fail(errors, file, 'serial.baudRate', 'must be an integer from 300 to 921600');
  }
  if (p.connection === 'hid-raw' && typeof (p.raw as RawReportLayout | undefined)?.dataOffset !== 'number') {
    fail(errors, file, 'raw', 'hid-raw profiles need { lengthOffset, dataOffset }');
  }
  if (errors.length > 0) throw new ValidationErrors(errors);
  return p as unknown as ReaderProfile;
}

/** The profiles shipped with PrintRelay (drivers/cardreaders at the package root). */
export function defaultProfilesDir(): string {
  return join(packageRoot(), 'drivers', 'cardreaders');
}

/** Reads and validates every *.json profile of a directory; ids must be unique. */
export async function loadReaderProfiles(dir = defaultProfilesDir()): Promise<ReaderProfile[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.json')).sort();
  const profiles: ReaderProfile[] = [];
  for (const file of files) {
    let data: unknown;
    try {
      data = JSON.parse(await readFile(`${dir}/${file}`, 'utf8'));
    } catch (error) {
      throw new ValidationError(file, `is not valid JSON (${(error as Error).message})`);
    }
    const profile = parseReaderProfile(data, file);
    if (profiles.some((p) => p.id === profile.id)) throw new ValidationError(`${file}: id`, 'must be unique');
    profiles.push(profile);
  }
  return profiles;
}

/** The profile named by id, or the first one matching USB ids. */
export function findProfile(
  profiles: readonly ReaderProfile[],
  query: { id?: string; vendorId?: number; productId?: number },
): ReaderProfile | undefined {
  if (query.id) return profiles.find((p) => p.id === query.id);
  return profiles.find((p) =>
    p.usb.some(
      (u) =>
        Number.parseInt(u.vendorId, 16) === query.vendorId &&
        Number.parseInt(u.productId, 16) === query.productId,
    ),
  );
}
