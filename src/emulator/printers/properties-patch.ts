/**
 * The connector's partial update of what it uploaded for a printer
 * (PATCH /connector/v1/printers/<id>/properties, body PrinterPropertiesPatch): validation and
 * merge, pure. Each given property field is checked as the PUT checks it (printer-wire.ts), each
 * given blob capability as the PUT of the five defaults checks it (protocol/blob-capabilities.ts);
 * unknown names are refused; every broken rule is reported at once, before anything is merged.
 * Given fields replace the stored ones whole, absent ones stay. A part with nothing stored yet
 * takes only a complete first upload. No I/O; nothing to clean up.
 */
import { ValidationError, ValidationErrors } from '../../lib/errors.js';
import {
  BLOB_CAPABILITY_NAMES,
  type BlobCapabilities,
  type BlobCapabilityName,
  checkBlobCapability,
  isBlobCapabilityName,
} from '../../protocol/blob-capabilities.js';
import type { PrinterCapabilityProperties } from '../../protocol/printer-properties.js';
import { checkPropertyField, isPropertyName, PROPERTY_NAMES } from './printer-wire.js';

/** What is stored for the printer before the PATCH (null: never uploaded). */
export interface StoredUpload {
  properties: PrinterCapabilityProperties | null;
  defaults: BlobCapabilities | null;
}

/** The merged values to store (absent: that part was not in the PATCH) and the names it changed. */
export interface MergedUpload {
  properties?: PrinterCapabilityProperties;
  defaults?: BlobCapabilities;
  propertyNames: string[];
  capabilityNames: BlobCapabilityName[];
}

const TOP_LEVEL = ['properties', 'blob_capabilities'];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** ValidationError naming `field` when a first upload leaves out some of `all`. */
function firstUploadRule(
  field: string,
  given: string[],
  all: readonly string[],
): ValidationError | undefined {
  const missing = all.filter((name) => !given.includes(name));
  if (missing.length === 0) return undefined;
  return new ValidationError(
    field,
    `the first upload must be complete: nothing is stored yet to merge with (missing ${missing.join(', ')})`,
  );
}

function checkProperties(value: unknown, stored: StoredUpload, errors: ValidationError[]): string[] {
  if (!isObject(value)) {
    errors.push(new ValidationError('properties', 'must be an object'));
    return [];
  }
  const names = Object.keys(value);
  for (const name of names) {
    const path = `properties.${name}`;
    if (!isPropertyName(name)) errors.push(new ValidationError(path, 'unknown field'));
    else {
      const error = checkPropertyField(name, value[name], path);
      if (error) errors.push(error);
    }
  }
  const incomplete = stored.properties ? undefined : firstUploadRule('properties', names, PROPERTY_NAMES);
  if (incomplete) errors.push(incomplete);
  return names;
}

function checkCapabilities(value: unknown, stored: StoredUpload, errors: ValidationError[]): string[] {
  if (!isObject(value)) {
    errors.push(new ValidationError('blob_capabilities', 'must be an object'));
    return [];
  }
  const names = Object.keys(value);
  for (const name of names) {
    const path = `blob_capabilities.${name}`;
    if (!isBlobCapabilityName(name))
      errors.push(
        new ValidationError(path, `unknown capability (one of ${BLOB_CAPABILITY_NAMES.join(', ')})`),
      );
    else errors.push(...checkBlobCapability(name, value[name], path));
  }
  const incomplete = stored.defaults
    ? undefined
    : firstUploadRule('blob_capabilities', names, BLOB_CAPABILITY_NAMES);
  if (incomplete) errors.push(incomplete);
  return names;
}

/**
 * Validates a PATCH body against what is stored and returns the merged result; throws
 * ValidationErrors listing every broken rule (then nothing may be stored).
 */
export function mergePropertiesPatch(body: unknown, stored: StoredUpload): MergedUpload {
  if (!isObject(body)) throw new ValidationErrors([new ValidationError('body', 'must be an object')]);
  const errors: ValidationError[] = [];
  for (const key of Object.keys(body)) {
    if (!TOP_LEVEL.includes(key))
      errors.push(new ValidationError(key, 'unknown field (send properties and/or blob_capabilities)'));
  }
  const propertyNames =
    body['properties'] === undefined ? [] : checkProperties(body['properties'], stored, errors);
  const capabilityNames =
    body['blob_capabilities'] === undefined
      ? []
      : checkCapabilities(body['blob_capabilities'], stored, errors);
  if (errors.length > 0) throw new ValidationErrors(errors);
  const merged: MergedUpload = {
    propertyNames,
    capabilityNames: capabilityNames as BlobCapabilityName[],
  };
  if (propertyNames.length > 0) {
    const given = body['properties'] as Partial<PrinterCapabilityProperties>;
    merged.properties = { ...(stored.properties as PrinterCapabilityProperties), ...given };
  }
  if (capabilityNames.length > 0) {
    const given = body['blob_capabilities'] as Partial<BlobCapabilities>;
    merged.defaults = { ...(stored.defaults as BlobCapabilities), ...given };
  }
  return merged;
}
