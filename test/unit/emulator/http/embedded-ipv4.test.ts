/**
 * The IPv4 address carried inside an IPv6 one (NAT64's well-known prefix, 6to4), and the
 * expansion of IPv6 literals into their eight groups that finds it. The policy's use of both is
 * pinned by outbound-address-policy.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { embeddedIpv4, ipv6Groups } from '../../../../src/emulator/http/embedded-ipv4.js';

describe('ipv6Groups', () => {
  it.each([
    ['::', [0, 0, 0, 0, 0, 0, 0, 0]],
    ['::1', [0, 0, 0, 0, 0, 0, 0, 1]],
    ['fe80::', [0xfe80, 0, 0, 0, 0, 0, 0, 0]],
    ['2002:7f00:1::', [0x2002, 0x7f00, 1, 0, 0, 0, 0, 0]],
    ['2001:db8::5:6', [0x2001, 0xdb8, 0, 0, 0, 0, 5, 6]],
    ['2001:db8:1:2:3:4:5:6', [0x2001, 0xdb8, 1, 2, 3, 4, 5, 6]],
    ['2001:DB8:A:B:C:D:E:F', [0x2001, 0xdb8, 0xa, 0xb, 0xc, 0xd, 0xe, 0xf]],
    ['::ffff:192.168.100.200', [0, 0, 0, 0, 0, 0xffff, 0xc0a8, 0x64c8]],
    ['::ffff:1.2.3.4', [0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]],
    ['64:ff9b::10.20.30.40', [0x64, 0xff9b, 0, 0, 0, 0, 0xa14, 0x1e28]],
    ['1:2:3:4:5:6:10.0.0.1', [1, 2, 3, 4, 5, 6, 0xa00, 1]],
  ])('expands %s', (address, groups) => {
    expect(ipv6Groups(address)).toEqual(groups);
  });
});

describe('embeddedIpv4', () => {
  it.each([
    ['64:ff9b::7f00:1', 'NAT64', '127.0.0.1'],
    ['64:FF9B::C0A8:101', 'NAT64', '192.168.1.1'],
    ['64:ff9b::203.0.113.9', 'NAT64', '203.0.113.9'],
    ['2002:7f00:1::', '6to4', '127.0.0.1'],
    ['2002:cb00:7109:1::5', '6to4', '203.0.113.9'],
    ['2002:ffff:fffe::', '6to4', '255.255.255.254'],
  ])('finds in %s the %s form of %s', (address, form, ipv4) => {
    expect(embeddedIpv4(address)).toEqual({ form, ipv4 });
  });

  it.each([
    // Not IPv6: an IPv4 address whose first octets read like the 6to4 prefix, and a name.
    '32.2.127.0',
    'example.com',
    // The NAT64 prefix differs in one group (the local-use prefix 64:ff9b:1::/48 among them).
    '65:ff9b::7f00:1',
    '64:ff9a::7f00:1',
    '64:ff9b:1::7f00:1',
    '64:ff9b:0:1::7f00:1',
    '64:ff9b::1:0:7f00:1',
    '64:ff9b::1:7f00:1',
    // Neither prefix.
    '2003:7f00:1::',
    '::ffff:127.0.0.1',
    '::1',
  ])('finds none in %s', (address) => {
    expect(embeddedIpv4(address)).toBeUndefined();
  });
});
