/**
 * IPv4 addresses carried inside IPv6 ones by translation and tunnelling prefixes, so that the
 * outbound policy judges the IPv4 address a packet really reaches:
 * - NAT64, the well-known prefix `64:ff9b::/96` (RFC 6052): the last 32 bits;
 * - 6to4, `2002::/16` (RFC 3056): bits 16 to 48.
 * Pure; no resources held.
 */
import { isIP } from 'node:net';

/** An IPv4 address found inside an IPv6 one, and the form that carried it. */
export interface EmbeddedIpv4 {
  form: 'NAT64' | '6to4';
  ipv4: string;
}

/** The IPv4 address embedded in `address` (a bare IPv6 literal), or undefined when it carries none. */
export function embeddedIpv4(address: string): EmbeddedIpv4 | undefined {
  if (isIP(address) !== 6) return undefined;
  const g = ipv6Groups(address);
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0)
    return { form: 'NAT64', ipv4: ipv4Of(g[6] ?? 0, g[7] ?? 0) };
  if (g[0] === 0x2002) return { form: '6to4', ipv4: ipv4Of(g[1] ?? 0, g[2] ?? 0) };
  return undefined;
}

/** The eight 16-bit groups of a valid IPv6 literal (`::` expanded, a dotted IPv4 tail converted). */
export function ipv6Groups(address: string): number[] {
  // Stryker disable next-line MethodExpression: hex digits parse the same in either case
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    const tail = `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
    text = text.slice(0, text.length - dotted[0].length) + tail;
  }
  const [head = '', rest] = text.split('::');
  const front = head === '' ? [] : head.split(':');
  const back = rest === undefined || rest === '' ? [] : rest.split(':');
  const zeros = rest === undefined ? [] : new Array<string>(8 - front.length - back.length).fill('0');
  return [...front, ...zeros, ...back].map((group) => Number.parseInt(group, 16));
}

function ipv4Of(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}
