import { beforeEach, describe, expect, it } from 'vitest';
import { OutboundAddressPolicy } from '../../../../src/emulator/http/outbound-address-policy.js';

const RULE =
  'the emulator connects only to public addresses unless the allow-list (--allow-outbound) names the range';

describe('OutboundAddressPolicy', () => {
  // Built per test, so an error of the constructor under a mutant fails the tests (mutation testing).
  let strict: OutboundAddressPolicy;
  beforeEach(() => {
    strict = new OutboundAddressPolicy();
  });

  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['127.8.9.10', 'a loopback address'],
    ['::1', 'a loopback address'],
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['::ffff:7f00:1', 'a loopback address'],
    ['10.1.2.3', 'a private address'],
    ['172.16.0.1', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['192.168.1.1', 'a private address'],
    ['::ffff:192.168.1.1', 'a private address'],
    ['169.254.169.254', 'a link-local address'],
    ['fe80::1', 'a link-local address'],
    ['fe80::1%eth0', 'a link-local address'],
    ['febf::1', 'a link-local address'],
    ['fc00::1', 'a unique-local (private) address'],
    ['fd12:3456::1', 'a unique-local (private) address'],
    ['100.64.0.1', 'a shared (carrier-grade NAT) address'],
    ['0.0.0.0', 'an unspecified address'],
    ['::', 'an unspecified address'],
    ['224.0.0.1', 'a multicast address'],
    ['ff02::1', 'a multicast address'],
    ['255.255.255.255', 'a reserved address'],
    ['240.0.0.1', 'a reserved address'],
    ['fec0::1', 'a site-local address'],
    ['feff::1', 'a site-local address'],
    ['192.0.0.8', 'an IETF protocol address'],
    ['198.18.0.1', 'a benchmarking address'],
    ['198.19.255.254', 'a benchmarking address'],
    ['::a00:1', 'an IPv4-compatible address'],
    ['::808:808', 'an IPv4-compatible address'],
    ['64:ff9b:1::808:808', 'a local-use NAT64 address'],
    ['100::1', 'a discard-only address'],
    ['0.1.2.3', 'an unspecified address'],
    ['100.127.255.254', 'a shared (carrier-grade NAT) address'],
    ['169.254.0.1', 'a link-local address'],
    ['10.255.255.255', 'a private address'],
    ['192.168.255.1', 'a private address'],
    ['239.255.255.255', 'a multicast address'],
    ['[::1]', 'a loopback address'],
    ['[fe80::1%eth0]', 'a link-local address'],
  ])('refuses %s as %s', (address, kind) => {
    const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
    expect(strict.refusal(address)).toBe(`${bare} is ${kind}; ${RULE}`);
  });

  it.each([
    ['64:ff9b::7f00:1', 'NAT64', '127.0.0.1', 'a loopback address'],
    ['64:ff9b::127.0.0.1', 'NAT64', '127.0.0.1', 'a loopback address'],
    ['64:ff9b::a9fe:a9fe', 'NAT64', '169.254.169.254', 'a link-local address'],
    ['64:ff9b::c0a8:101', 'NAT64', '192.168.1.1', 'a private address'],
    ['2002:7f00:1::', '6to4', '127.0.0.1', 'a loopback address'],
    ['2002:a00:1:5::9', '6to4', '10.0.0.1', 'a private address'],
    ['2002:c0a8:101::1', '6to4', '192.168.1.1', 'a private address'],
    ['2002:6440:1::1', '6to4', '100.64.0.1', 'a shared (carrier-grade NAT) address'],
  ])('refuses %s, the %s form of %s, as %s', (address, form, ipv4, kind) => {
    expect(strict.refusal(address)).toBe(`${address} is the ${form} form of ${ipv4}, ${kind}; ${RULE}`);
  });

  it('allows the NAT64 and 6to4 forms of public and allowed IPv4 addresses', () => {
    expect(strict.refusal('64:ff9b::808:808')).toBeUndefined();
    expect(strict.refusal('2002:808:808::1')).toBeUndefined();
    const lab = new OutboundAddressPolicy(['192.168.10.0/24']);
    expect(lab.refusal('64:ff9b::c0a8:a4d')).toBeUndefined();
    expect(lab.refusal('2002:c0a8:a4d::1')).toBeUndefined();
    expect(lab.refusal('64:ff9b::c0a8:b4d')).toMatch(/NAT64 form of 192\.168\.11\.77, a private address/);
    expect(strict.urlRefusal('https://[64:ff9b::7f00:1]/hook')).toMatch(/NAT64 form of 127\.0\.0\.1/);
  });

  it.each([
    '8.8.8.8',
    '172.32.0.1',
    '192.169.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '192.0.1.1',
    '198.20.0.1',
    '100.128.0.1',
    '64:ff9b:2::808:808',
    '100:0:0:1::1',
  ])('allows the public address %s', (address) => {
    expect(strict.refusal(address)).toBeUndefined();
  });

  it('allows exactly the listed ranges and single addresses', () => {
    const lab = new OutboundAddressPolicy(['192.168.10.0/24', '::1', 'fd00:1::/32']);
    expect(lab.refusal('192.168.10.77')).toBeUndefined();
    expect(lab.refusal('::ffff:192.168.10.77')).toBeUndefined();
    expect(lab.refusal('192.168.11.77')).toBe(`192.168.11.77 is a private address; ${RULE}`);
    expect(lab.refusal('::1')).toBeUndefined();
    expect(lab.refusal('127.0.0.1')).toBe(`127.0.0.1 is a loopback address; ${RULE}`);
    expect(lab.refusal('fd00:1:2::3')).toBeUndefined();
    expect(lab.refusal('fd00:2::3')).toBe(`fd00:2::3 is a unique-local (private) address; ${RULE}`);
  });

  it.each(['example.com', '1[27.0.0.1', '::]1', '127.0.0.1:80', ''])(
    'refuses %j as not an IP address',
    (address) => {
      expect(strict.refusal(address)).toBe(`${address} is not an IP address`);
    },
  );

  it('keeps the allow-list as given', () => {
    const allow = ['192.168.10.0/24', '::1'];
    expect(new OutboundAddressPolicy(allow).allowList).toEqual(allow);
    expect(strict.allowList).toEqual([]);
  });

  it('reads allow-list entries around blanks, with every prefix length from 0 to the maximum', () => {
    const lab = new OutboundAddressPolicy([
      ' 10.1.0.0/16 ',
      '0.0.0.0/0',
      '127.0.0.1/32',
      'fd00:1::/48',
      'fe80::/128',
    ]);
    expect(lab.refusal('10.1.2.3')).toBeUndefined();
    expect(lab.refusal('192.168.1.1')).toBeUndefined();
    expect(lab.refusal('127.0.0.1')).toBeUndefined();
    expect(lab.refusal('fd00:1:0:5::1')).toBeUndefined();
    expect(lab.refusal('fd00:1:1::1')).toBe(`fd00:1:1::1 is a unique-local (private) address; ${RULE}`);
    expect(lab.refusal('fe80::')).toBeUndefined();
    expect(lab.refusal('fe80::1')).toBe(`fe80::1 is a link-local address; ${RULE}`);
    const host = new OutboundAddressPolicy(['127.0.0.2']);
    expect(host.refusal('127.0.0.2')).toBeUndefined();
    expect(host.refusal('127.0.0.3')).toBe(`127.0.0.3 is a loopback address; ${RULE}`);
  });

  it('judges the literal host of a URL, and localhost names as loopback', () => {
    expect(strict.urlRefusal('http://127.0.0.1:8080/a.pdf')).toBe(`127.0.0.1 is a loopback address; ${RULE}`);
    expect(strict.urlRefusal('https://[::1]/hook')).toBe(`::1 is a loopback address; ${RULE}`);
    expect(strict.urlRefusal('https://[::ffff:10.0.0.1]/hook')).toBe(
      `::ffff:a00:1 is a private address; ${RULE}`,
    );
    expect(strict.urlRefusal('http://localhost:9/a.pdf')).toBe(`localhost is a loopback address; ${RULE}`);
    expect(strict.urlRefusal('http://printer.localhost/a.pdf')).toBe(
      `printer.localhost is a loopback address; ${RULE}`,
    );
    expect(strict.urlRefusal('https://files.example.com/a.pdf')).toBeUndefined();
    expect(strict.urlRefusal('http://LocalHost./a.pdf')).toBe(`localhost. is a loopback address; ${RULE}`);
    expect(strict.urlRefusal('http://mylocalhost/a.pdf')).toBeUndefined();
    expect(strict.urlRefusal('http://localhost.example.com/a.pdf')).toBeUndefined();
    expect(new OutboundAddressPolicy(['127.0.0.0/8']).urlRefusal('http://localhost/a.pdf')).toBeUndefined();
  });

  it.each([
    '192.168.0.0/33',
    '10.0.0.0/',
    'fd00::/129',
    'example.com',
    '10.0.0.0/8/1',
    '10.0.0.0/x',
    '10.0.0.0/x8',
    '10.0.0.0/8x',
    '10.0.0.0/0008',
    '10.0.0.0/-1',
    '',
  ])('refuses the allow-list entry %s naming it', (entry) => {
    expect(() => new OutboundAddressPolicy([entry])).toThrow(
      `"${entry}" is not an address range: give a CIDR such as 192.168.10.0/24 or fd00::/8, or one address`,
    );
  });
});
