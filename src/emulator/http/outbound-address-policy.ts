/**
 * Which addresses the emulator itself may connect to: `fileurl` fetches and webhook deliveries
 * (the endpoint test too). By default only public addresses: loopback, private, link-local,
 * carrier-grade NAT, unique-local, multicast and reserved ranges are refused, IPv4-mapped IPv6
 * forms (`::ffff:127.0.0.1`) included, and so are the NAT64 (`64:ff9b::/96`) and 6to4
 * (`2002::/16`) forms of a refused IPv4 address (judged by the IPv4 address they carry). A lab lists ranges it wants reachable anyway (CIDRs, or
 * single addresses) in the allow-list.
 *
 * The rule is applied to the address actually connected to: `connector()` gives undici a
 * connect function whose DNS lookup drops refused addresses before the connection is made,
 * refuses an IP-literal host before connecting, and checks the connected socket's peer address
 * once more. A redirect opens its connection through the same function, so every hop is checked.
 * `urlRefusal` checks a URL's literal host early (for a clear 400 at request time); a name is
 * only judged once resolved. No resources held.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { buildConnector } from 'undici';
import { embeddedIpv4 } from './embedded-ipv4.js';

interface NamedRange {
  kind: string;
  list: BlockList;
}

/** The ranges refused by default, each with the word the error uses. */
const REFUSED: readonly [kind: string, cidr: string][] = [
  ['a loopback address', '127.0.0.0/8'],
  ['a loopback address', '::1/128'],
  ['a private address', '10.0.0.0/8'],
  ['a private address', '172.16.0.0/12'],
  ['a private address', '192.168.0.0/16'],
  ['a link-local address', '169.254.0.0/16'],
  ['a link-local address', 'fe80::/10'],
  ['a unique-local (private) address', 'fc00::/7'],
  ['a site-local address', 'fec0::/10'],
  ['a shared (carrier-grade NAT) address', '100.64.0.0/10'],
  ['an unspecified address', '0.0.0.0/8'],
  ['an unspecified address', '::/128'],
  ['an IETF protocol address', '192.0.0.0/24'],
  ['a benchmarking address', '198.18.0.0/15'],
  ['a multicast address', '224.0.0.0/4'],
  ['a multicast address', 'ff00::/8'],
  ['a reserved address', '240.0.0.0/4'],
  ['an IPv4-compatible address', '::/96'],
  ['a local-use NAT64 address', '64:ff9b:1::/48'],
  ['a discard-only address', '100::/64'],
];

/** Loopback names that never need DNS to be known as loopback (RFC 6761). */
const LOOPBACK_NAMES = /^(localhost|.+\.localhost)\.?$/i;

/** The error of a refused connection; `message` names the address and the rule. */
export class OutboundAddressRefused extends Error {
  readonly code = 'E_OUTBOUND_ADDRESS_REFUSED';
}

/** Decides whether an outbound connection to an address may be made. */
export class OutboundAddressPolicy {
  private readonly refused: NamedRange[];
  private readonly allowed = new BlockList();
  /** The allow-list as given (for messages and docs). */
  readonly allowList: readonly string[];

  /** `allow`: CIDRs or single addresses reachable despite the default rule; throws naming a bad entry. */
  constructor(allow: readonly string[] = []) {
    this.refused = REFUSED.map(([kind, cidr]) => ({ kind, list: blockOf(cidr) }));
    for (const entry of allow) addEntry(this.allowed, entry);
    this.allowList = [...allow];
  }

  /** Why `address` (an IP literal) is refused, or undefined when it may be connected to. */
  refusal(address: string): string | undefined {
    const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
    const family = isIP(bare);
    if (family === 0) return `${address} is not an IP address`;
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (this.allowed.check(bare, type)) return undefined;
    const rule =
      'the emulator connects only to public addresses unless the allow-list (--allow-outbound) names the range';
    const hit = this.refused.find((range) => range.list.check(bare, type));
    if (hit) return `${bare} is ${hit.kind}; ${rule}`;
    const inner = embeddedIpv4(bare);
    if (!inner || this.allowed.check(inner.ipv4, 'ipv4')) return undefined;
    const innerHit = this.refused.find((range) => range.list.check(inner.ipv4, 'ipv4'));
    if (!innerHit) return undefined;
    return `${bare} is the ${inner.form} form of ${inner.ipv4}, ${innerHit.kind}; ${rule}`;
  }

  /**
   * Why the literal host of `url` is refused (an IP address in a refused range, or a loopback
   * name such as localhost), or undefined. Names are judged after resolution, at connect time.
   */
  urlRefusal(url: string): string | undefined {
    const host = new URL(url).hostname;
    if (LOOPBACK_NAMES.test(host)) return this.refusal('127.0.0.1')?.replace('127.0.0.1', host);
    // Stryker disable next-line Regex: a URL's hostname has brackets only around a whole IPv6 literal
    const bare = host.replace(/^\[|\]$/g, '');
    return isIP(bare) === 0 ? undefined : this.refusal(bare);
  }

  /** An undici connect function (TLS options passed through) that applies the rule; see the file comment. */
  connector(tls: buildConnector.BuildOptions = {}): buildConnector.connector {
    const base = buildConnector({ ...tls, lookup: this.lookup } as buildConnector.BuildOptions);
    return (options, callback) => {
      // Stryker disable next-line Regex: undici's hostname has brackets only around a whole IPv6 literal
      const host = options.hostname.replace(/^\[|\]$/g, '');
      const early = isIP(host) === 0 ? undefined : this.refusal(host);
      if (early) {
        callback(new OutboundAddressRefused(early), null);
        return;
      }
      base(options, (error, socket) => {
        if (error || !socket) return callback(error ?? new Error('no socket'), null);
        const late = socket.remoteAddress === undefined ? undefined : this.refusal(socket.remoteAddress);
        if (late) {
          socket.destroy();
          return callback(new OutboundAddressRefused(late), null);
        }
        return callback(null, socket);
      });
    };
  }

  /** dns.lookup that drops refused addresses; fails naming the first when none is left. */
  readonly lookup = (
    hostname: string,
    options: LookupOptions,
    callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      const usable = addresses.filter((a) => this.refusal(a.address) === undefined);
      const first = usable[0];
      if (!first) {
        const why = addresses[0] ? this.refusal(addresses[0].address) : 'no address';
        return callback(new OutboundAddressRefused(`${hostname}: ${why}`), '');
      }
      if (options.all) return callback(null, usable);
      return callback(null, first.address, first.family);
    });
  };
}

function blockOf(cidr: string): BlockList {
  const list = new BlockList();
  addEntry(list, cidr);
  return list;
}

/** Adds `a.b.c.d/n`, `x::y/n` or a single address to `list`; throws naming the entry. */
function addEntry(list: BlockList, entry: string): void {
  const [address = '', prefixText, extra] = entry.trim().split('/');
  const family = isIP(address);
  const max = family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : -1;
  if (family === 0 || extra !== undefined || prefix < 0 || prefix > max) {
    throw new Error(
      `"${entry}" is not an address range: give a CIDR such as 192.168.10.0/24 or fd00::/8, or one address`,
    );
  }
  list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
}
