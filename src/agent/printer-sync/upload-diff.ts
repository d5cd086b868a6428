/**
 * What a printer's capability upload must carry this run, from hashes of what was uploaded
 * before. Pure; nothing to clean up.
 *
 * Granularity: one hash per top-level field of the printer properties (`Trays`, `Default`,
 * `PaperFormats`, ...) and one per blob capability (`colors`, `trays`, `options`, `papers`,
 * `resolutions`). A field is the unit the cloud's PATCH replaces, so nothing finer can be sent,
 * and grouping fields by capability would not be smaller: `Default` mixes the default paper,
 * tray, resolution, duplex and color, so any group holding it would resend the others' fields.
 * A tray fitted to a printer therefore changes `Trays` (and `Default` only when the default tray
 * moved) and the `trays` capability, and exactly those go.
 *
 * The upload is `full` (PUT of the whole properties with all five defaults) for a printer just
 * created, and for one without stored hashes for a part it has (never uploaded, state lost, or
 * reset after a failed upload): the cloud then holds nothing complete to merge a PATCH into.
 * Otherwise it is a `patch` of the changed fields and capabilities, or `none`.
 */
import { createHash } from 'node:crypto';
import type {
  BlobCapabilities,
  BlobCapabilityName,
} from '../../printing/translate/capabilities/blob-capabilities.js';
import type { PrinterCapabilityProperties } from '../../protocol/printer-properties.js';

/** The name of one top-level printer-properties field. */
export type PropertyName = keyof PrinterCapabilityProperties;

/** The hashes of what the cloud holds for a printer (absent or empty: nothing known). */
export interface UploadHashes {
  propertyHashes?: Partial<Record<PropertyName, string>>;
  capabilityHashes: Partial<Record<BlobCapabilityName, string>>;
}

/** What the printer offers this run. */
export interface UploadSource {
  properties?: PrinterCapabilityProperties;
  capabilities?: BlobCapabilities;
}

/** What to send: nothing, everything (PUT), or the changed parts (PATCH, never empty). */
export type UploadDiff =
  | { mode: 'none' }
  | { mode: 'full'; properties?: PrinterCapabilityProperties; capabilities?: BlobCapabilities }
  | {
      mode: 'patch';
      properties?: Partial<PrinterCapabilityProperties>;
      capabilities?: Partial<BlobCapabilities>;
    };

const CAPABILITY_NAMES: BlobCapabilityName[] = ['colors', 'trays', 'options', 'papers', 'resolutions'];

/** A stable hash of a JSON value (object keys sorted). */
export function stableHash(value: unknown): string {
  return createHash('sha256').update(stableJson(value)).digest('hex');
}

/** JSON with object keys sorted and undefined members left out, so equal values give equal text. */
export function stableJson(value: unknown): string {
  const parts: string[] = [];
  writeStableJson(value, parts);
  return parts.join('');
}

/**
 * Appends the stable JSON of `value` to `out` piece by piece: the sync hashes every printer's
 * capabilities each run, and building the text this way allocates only the pieces (no key/value
 * pairs, copies or joined text per nested object).
 */
function writeStableJson(value: unknown, out: string[]): void {
  if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(',');
      // A hole of a sparse array stays empty, as Array.prototype.join leaves it.
      if (i in value) writeStableJson(value[i], out);
    }
    out.push(']');
    return;
  }
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    out.push('{');
    let first = true;
    // The default sort orders by UTF-16 code units, as comparing strings with < does.
    for (const key of Object.keys(record).sort()) {
      const member = record[key];
      if (member === undefined) continue;
      if (!first) out.push(',');
      first = false;
      out.push(JSON.stringify(key), ':');
      writeStableJson(member, out);
    }
    out.push('}');
    return;
  }
  out.push(JSON.stringify(value) ?? 'null');
}

/** One hash per top-level field of the properties. */
export function propertyHashesOf(
  properties: PrinterCapabilityProperties,
): Partial<Record<PropertyName, string>> {
  const hashes: Partial<Record<PropertyName, string>> = {};
  for (const [name, value] of Object.entries(properties) as [PropertyName, unknown][])
    hashes[name] = stableHash(value);
  return hashes;
}

/** One hash per blob capability. */
export function capabilityHashesOf(
  capabilities: BlobCapabilities,
): Partial<Record<BlobCapabilityName, string>> {
  const hashes: Partial<Record<BlobCapabilityName, string>> = {};
  for (const name of CAPABILITY_NAMES) hashes[name] = stableHash(capabilities[name]);
  return hashes;
}

/** The members of `values` whose hash differs from the stored one (undefined when none). */
function changed<K extends string, T extends Record<K, unknown>>(
  values: T,
  now: Partial<Record<K, string>>,
  stored: Partial<Record<K, string>>,
): Partial<T> | undefined {
  const picked: Partial<T> = {};
  let any = false;
  for (const name of Object.keys(now) as K[]) {
    if (now[name] === stored[name]) continue;
    Object.assign(picked, { [name]: values[name] });
    any = true;
  }
  return any ? picked : undefined;
}

const isEmpty = (hashes: object | undefined): boolean => !hashes || Object.keys(hashes).length === 0;

/**
 * What to upload for a printer, and the hashes to remember once it went through. `fresh`: the
 * cloud printer was just created (it holds no upload). Parts the printer lacks this run keep
 * their stored hashes.
 */
export function diffUploads(
  source: UploadSource,
  stored: UploadHashes,
  fresh: boolean,
): { diff: UploadDiff; hashes: UploadHashes } {
  const { properties, capabilities } = source;
  const propertyHashes = properties ? propertyHashesOf(properties) : stored.propertyHashes;
  const capabilityHashes = capabilities ? capabilityHashesOf(capabilities) : stored.capabilityHashes;
  const hashes: UploadHashes = { propertyHashes, capabilityHashes };
  if (!properties && !capabilities) return { diff: { mode: 'none' }, hashes };
  const full =
    fresh ||
    (properties !== undefined && isEmpty(stored.propertyHashes)) ||
    (capabilities !== undefined && isEmpty(stored.capabilityHashes));
  if (full) return { diff: { mode: 'full', properties, capabilities }, hashes };
  const props = properties && changed(properties, propertyHashes ?? {}, stored.propertyHashes ?? {});
  const caps = capabilities && changed(capabilities, capabilityHashes, stored.capabilityHashes);
  if (!props && !caps) return { diff: { mode: 'none' }, hashes };
  const diff: UploadDiff = { mode: 'patch' };
  if (props) diff.properties = props;
  if (caps) diff.capabilities = caps;
  return { diff, hashes };
}
