/**
 * Card-number conversions (field notes: readers of one card deliver hex or decimal, reversed
 * bytes, leading zeros, facility prefixes, ASCII-coded digits). A site configures a chain of
 * steps applied in order; `probeConversions` shows the common ones of one swipe side by side so
 * IT can pick the chain. Pure; numbers go through BigInt so long UIDs stay exact.
 */
import { ValidationError } from '../lib/errors.js';

/** One parsed step of a chain. */
export interface TransformStep {
  /** The step as configured, e.g. `regex:^..(.*)$`. */
  spec: string;
  apply(value: string): string;
}

type StepFactory = (argument: string | undefined, spec: string) => (value: string) => string;

function needHex(value: string, step: string): string {
  const hex = value.replace(/\s+/g, '');
  if (!/^[0-9a-fA-F]+$/.test(hex)) throw new ValidationError(step, `input "${value}" is not hexadecimal`);
  return hex;
}

function needDecimal(value: string, step: string): string {
  if (!/^\d+$/.test(value)) throw new ValidationError(step, `input "${value}" is not decimal`);
  return value;
}

function needCount(argument: string | undefined, spec: string): number {
  if (argument === undefined || !/^\d{1,3}$/.test(argument)) {
    throw new ValidationError(spec, 'needs a whole-number argument, e.g. pad:10');
  }
  return Number(argument);
}

function evenHex(value: string, step: string): string {
  const hex = needHex(value, step);
  return hex.length % 2 === 1 ? `0${hex}` : hex;
}

const factories: Record<string, StepFactory> = {
  hex2dec: () => (v) => BigInt(`0x${needHex(v, 'hex2dec')}`).toString(10),
  dec2hex: () => (v) => BigInt(needDecimal(v, 'dec2hex')).toString(16).toUpperCase(),
  'reverse-bytes': () => (v) => (evenHex(v, 'reverse-bytes').match(/../g) ?? []).reverse().join(''),
  'strip-leading-zeros': () => (v) => v.replace(/^0+(?=.)/, ''),
  'ascii-decode': () => (v) => {
    const codes = (evenHex(v, 'ascii-decode').match(/../g) ?? []).map((b) => Number.parseInt(b, 16));
    if (codes.some((c) => c < 0x20 || c > 0x7e))
      throw new ValidationError('ascii-decode', 'bytes are not printable ASCII');
    return String.fromCharCode(...codes);
  },
  'ascii-encode': () => (v) =>
    [...v].map((c) => c.charCodeAt(0).toString(16).padStart(2, '0').toUpperCase()).join(''),
  upper: () => (v) => v.toUpperCase(),
  lower: () => (v) => v.toLowerCase(),
  trim: () => (v) => v.trim(),
  pad: (argument, spec) => {
    const width = needCount(argument, spec);
    return (v) => v.padStart(width, '0');
  },
  'strip-facility': (argument, spec) => {
    const digits = needCount(argument, spec);
    return (v) => {
      if (v.length <= digits)
        throw new ValidationError(spec, `input is not longer than ${digits} characters`);
      return v.slice(digits);
    };
  },
  'keep-low-bits': (argument, spec) => {
    const bits = BigInt(needCount(argument, spec));
    return (v) => (BigInt(`0x${needHex(v, spec)}`) & ((1n << bits) - 1n)).toString(16).toUpperCase();
  },
  wiegand26: () => (v) => {
    const value = BigInt(`0x${needHex(v, 'wiegand26')}`);
    if (value >> 26n !== 0n) throw new ValidationError('wiegand26', 'input has more than 26 bits');
    return ((value >> 1n) & 0xffffn).toString(10);
  },
  regex: (argument, spec) => {
    if (!argument) throw new ValidationError(spec, 'needs a pattern, e.g. regex:^.{4}(.*)$');
    let pattern: RegExp;
    try {
      pattern = new RegExp(argument);
    } catch (error) {
      throw new ValidationError(spec, `is not a valid regular expression (${(error as Error).message})`);
    }
    return (v) => {
      const match = pattern.exec(v);
      if (!match) throw new ValidationError(spec, 'pattern does not match the card number');
      return match[1] ?? match[0];
    };
  },
};

/** Names of the steps a chain may use (arguments after a colon where they take one). */
export const TRANSFORM_NAMES = Object.keys(factories);

/** Parses one step; throws ValidationError naming the step and the rule. */
export function parseTransformStep(spec: string): TransformStep {
  const colon = spec.indexOf(':');
  const name = (colon < 0 ? spec : spec.slice(0, colon)).trim();
  const argument = colon < 0 ? undefined : spec.slice(colon + 1);
  const factory = factories[name];
  if (!factory)
    throw new ValidationError(spec, `unknown conversion; use one of ${TRANSFORM_NAMES.join(', ')}`);
  return { spec, apply: factory(argument, spec) };
}

/** Parses a whole chain; errors of all steps are reported with their position. */
export function parseTransformChain(specs: readonly string[]): TransformStep[] {
  return specs.map((spec, index) => {
    try {
      return parseTransformStep(spec);
    } catch (error) {
      if (error instanceof ValidationError) throw new ValidationError(`transforms[${index}]`, error.message);
      throw error;
    }
  });
}

/** Applies a chain in order; throws ValidationError naming the step that could not convert. */
export function applyTransforms(chain: readonly TransformStep[], raw: string): string {
  const result = chain.reduce((value, step) => step.apply(value), raw.trim());
  if (result === '') throw new ValidationError('card', 'conversion chain produced an empty card number');
  return result;
}

/** Chains `card probe` shows for one swipe. */
export const PROBE_CHAINS: readonly string[][] = [
  [],
  ['hex2dec'],
  ['dec2hex'],
  ['reverse-bytes'],
  ['reverse-bytes', 'hex2dec'],
  ['strip-leading-zeros'],
  ['hex2dec', 'strip-leading-zeros'],
  ['ascii-decode'],
  ['keep-low-bits:16', 'hex2dec'],
  ['wiegand26'],
  ['upper'],
];

/** One row of a probe: the chain and its output, or why it does not apply. */
export interface ProbeRow {
  chain: string;
  result?: string;
  error?: string;
}

/** Every conversion of one swipe side by side (extra chains, e.g. the configured one, first). */
export function probeConversions(raw: string, extra: readonly string[][] = []): ProbeRow[] {
  return [...extra, ...PROBE_CHAINS].map((specs) => {
    const chain = specs.length === 0 ? '(as read)' : specs.join(' | ');
    try {
      return { chain, result: applyTransforms(parseTransformChain(specs), raw) };
    } catch (error) {
      return { chain, error: (error as Error).message };
    }
  });
}
