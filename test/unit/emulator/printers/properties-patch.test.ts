import { blobCapabilities } from '../../../support/blob-fixtures.js';
import { describe, expect, it } from 'vitest';
import { ValidationErrors } from '../../../../src/lib/errors.js';
import { defaultCapabilityProperties } from '../../../../src/emulator/printers/printer-wire.js';
import {
  mergePropertiesPatch,
  type StoredUpload,
} from '../../../../src/emulator/printers/properties-patch.js';
import type { BlobCapabilities } from '../../../../src/protocol/blob-capabilities.js';

const defaults: BlobCapabilities = blobCapabilities();
const stored: StoredUpload = { properties: defaultCapabilityProperties(), defaults };
const nothing: StoredUpload = { properties: null, defaults: null };
const trays = [
  { index: 1, name: 'Tray 1', default: true },
  { index: 2, name: 'Tray 2', default: false },
];

/** The fields of the ValidationErrors `run` throws (empty when it does not throw). */
function refused(run: () => unknown): string[] {
  try {
    run();
    return [];
  } catch (error) {
    if (!(error instanceof ValidationErrors)) throw error;
    return error.errors.map((e) => e.field);
  }
}

describe('mergePropertiesPatch', () => {
  it('given fields replace the stored ones whole, absent ones stay', () => {
    const Trays = [{ Index: 3, Name: 'Tray 3', Default: true }];
    const merged = mergePropertiesPatch({ properties: { Trays }, blob_capabilities: { trays } }, stored);
    expect(merged.properties).toEqual({ ...defaultCapabilityProperties(), Trays });
    expect(merged.defaults).toEqual({ ...defaults, trays });
    expect(merged.propertyNames).toEqual(['Trays']);
    expect(merged.capabilityNames).toEqual(['trays']);
  });

  it('an empty PATCH merges nothing', () => {
    expect(mergePropertiesPatch({}, stored)).toEqual({ propertyNames: [], capabilityNames: [] });
  });

  it.each([
    ['a body that is no object', [], ['body']],
    ['an unknown top-level field', { blob: {} }, ['blob']],
    ['properties that are no object', { properties: [] }, ['properties']],
    ['an unknown property', { properties: { Fonts: [] } }, ['properties.Fonts']],
    ['a property of the wrong type', { properties: { Collate: 'yes' } }, ['properties.Collate']],
    ['blob_capabilities that are no object', { blob_capabilities: 5 }, ['blob_capabilities']],
    ['an unknown capability', { blob_capabilities: { fonts: [] } }, ['blob_capabilities.fonts']],
    ['a bad capability', { blob_capabilities: { options: -1 } }, ['blob_capabilities.options']],
  ])('refuses %s', (_name, body, fields) => {
    expect(refused(() => mergePropertiesPatch(body, stored))).toEqual(fields);
  });

  it('a part with nothing stored takes only a complete first upload', () => {
    expect(refused(() => mergePropertiesPatch({ blob_capabilities: { trays } }, nothing))).toEqual([
      'blob_capabilities',
    ]);
    expect(refused(() => mergePropertiesPatch({ properties: { Trays: [] } }, nothing))).toEqual([
      'properties',
    ]);
    const whole = mergePropertiesPatch(
      { properties: defaultCapabilityProperties(), blob_capabilities: defaults },
      nothing,
    );
    expect(whole).toMatchObject({ properties: defaultCapabilityProperties(), defaults });
  });
});
