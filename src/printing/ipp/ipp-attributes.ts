/**
 * Helpers around decoded IPP attributes: building attributes with the right value tag, turning a
 * group into the plain `PrinterAttributes` record the rest of PrintRelay reads (one value -> the
 * value, several -> an array, collections -> plain objects, out-of-band -> null), and small readers.
 * Pure; nothing to clean up.
 */
import type { PrinterAttributes } from '../printer-backend.js';
import {
  type IppAttribute,
  type IppGroup,
  type IppMessage,
  type IppValue,
  isCollection,
} from './ipp-codec.js';
import { TAG } from './ipp-constants.js';

/** Builds an attribute from a tag, a name and one or several values. */
export function attr(tag: number, name: string, value: IppValue | IppValue[]): IppAttribute {
  return { tag, name, values: Array.isArray(value) ? value : [value] };
}

/** The operation-group attributes every request starts with (charset, language, printer-uri). */
export function operationPreamble(printerUri: string): IppAttribute[] {
  return [
    attr(TAG.CHARSET, 'attributes-charset', 'utf-8'),
    attr(TAG.NATURAL_LANGUAGE, 'attributes-natural-language', 'en'),
    attr(TAG.URI, 'printer-uri', printerUri),
  ];
}

function plainValue(value: IppValue): unknown {
  if (value instanceof Date) return value.toISOString();
  if (typeof value !== 'object' || value === null) return value;
  if (isCollection(value)) return attributesToRecord(value.members);
  if ('outOfBand' in value) return null;
  return { ...value };
}

/** Attributes as a plain record (later duplicates win). */
export function attributesToRecord(attributes: IppAttribute[]): PrinterAttributes {
  const record: PrinterAttributes = {};
  for (const a of attributes) {
    const values = a.values.map(plainValue);
    record[a.name] = values.length === 1 ? values[0] : values;
  }
  return record;
}

/** The attributes of every group with the given tag, merged into one record. */
export function groupRecord(message: Pick<IppMessage, 'groups'>, groupTag: number): PrinterAttributes {
  return attributesToRecord(message.groups.filter((g) => g.tag === groupTag).flatMap((g) => g.attributes));
}

/** The groups with the given tag, each as a record (Get-Jobs answers one job group per job). */
export function groupRecords(message: Pick<IppMessage, 'groups'>, groupTag: number): PrinterAttributes[] {
  return message.groups
    .filter((g: IppGroup) => g.tag === groupTag)
    .map((g) => attributesToRecord(g.attributes));
}

/** The first attribute with this name in any group. */
export function findAttribute(message: Pick<IppMessage, 'groups'>, name: string): IppAttribute | undefined {
  for (const group of message.groups) {
    const found = group.attributes.find((a) => a.name === name);
    if (found) return found;
  }
  return undefined;
}

/** The first value of an attribute as a string, or undefined. */
export function firstText(record: PrinterAttributes, name: string): string | undefined {
  const value = record[name];
  const single = Array.isArray(value) ? value[0] : value;
  return typeof single === 'string' ? single : undefined;
}

/** The first value of an attribute as a number, or undefined. */
export function firstNumber(record: PrinterAttributes, name: string): number | undefined {
  const value = record[name];
  const single = Array.isArray(value) ? value[0] : value;
  return typeof single === 'number' ? single : undefined;
}

/** All values of an attribute as strings (non-strings dropped). */
export function textList(record: PrinterAttributes, name: string): string[] {
  const value = record[name];
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return list.filter((v): v is string => typeof v === 'string');
}
