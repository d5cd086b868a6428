/**
 * The device passwords a connection proved to /TPFM/ (connection-proofs.ts): the key of a header
 * and Printer parameter, the proofs of one connection apart from another's, forgetting one, and
 * the bound of PROOFS_PER_CONNECTION (the proof used least recently goes first). The use of a
 * proof by the authenticator is pinned by tpfm-auth.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { PullPasswordRow } from '../../../../../src/emulator/printers/printers-face.js';
import {
  ConnectionProofs,
  PROOFS_PER_CONNECTION,
} from '../../../../../src/emulator/pull/tpfm/connection-proofs.js';

const row = (printerName: string): PullPasswordRow => ({
  organizationId: 'org-1',
  printerName,
  hash: `h-${printerName}`,
});

describe('ConnectionProofs.keyOf', () => {
  const proofs = new ConnectionProofs();

  it('is a base64 HMAC, the same for the same header and Printer parameter', () => {
    const key = proofs.keyOf('Basic dTpw', 'Demo');
    expect(key).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(proofs.keyOf('Basic dTpw', 'Demo')).toBe(key);
    expect(key).not.toContain('dTpw');
  });

  it('differs per header, per Printer parameter, and with a parameter or none', () => {
    const keys = [
      proofs.keyOf('Basic dTpw', undefined),
      proofs.keyOf('Basic dTpx', undefined),
      proofs.keyOf('Basic dTpw', 'Demo'),
      proofs.keyOf('Basic dTpw', 'Other'),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('keeps the header and the parameter apart (no shift of a character from one to the other)', () => {
    expect(proofs.keyOf('Basic ab', 'c')).not.toBe(proofs.keyOf('Basic a', 'bc'));
  });

  it('takes no Printer parameter as an empty one', () => {
    expect(proofs.keyOf('Basic dTpw', undefined)).toBe(proofs.keyOf('Basic dTpw', ''));
  });

  it('is keyed by the instance: another instance gives another key', () => {
    expect(new ConnectionProofs().keyOf('Basic dTpw', 'Demo')).not.toBe(proofs.keyOf('Basic dTpw', 'Demo'));
  });
});

describe('ConnectionProofs per connection', () => {
  it('answers the row a key proved on that connection only, and nothing for an unknown one', () => {
    const proofs = new ConnectionProofs();
    const first = {};
    const second = {};
    const key = proofs.keyOf('Basic dTpw', undefined);
    expect(proofs.get(first, key)).toBeUndefined();
    proofs.remember(first, key, row('Demo'));
    expect(proofs.get(first, key)).toEqual(row('Demo'));
    expect(proofs.get(second, key)).toBeUndefined();
    expect(proofs.get(first, proofs.keyOf('Basic dTpx', undefined))).toBeUndefined();
    proofs.remember(second, key, row('Other'));
    expect(proofs.get(first, key)).toEqual(row('Demo'));
    expect(proofs.get(second, key)).toEqual(row('Other'));
  });

  it('replaces the row of a key proved again', () => {
    const proofs = new ConnectionProofs();
    const connection = {};
    proofs.remember(connection, 'k', row('Demo'));
    proofs.remember(connection, 'k', row('Other'));
    expect(proofs.get(connection, 'k')).toEqual(row('Other'));
  });

  it('forgets one proof of one connection, and forgets on an unknown connection without error', () => {
    const proofs = new ConnectionProofs();
    const first = {};
    const second = {};
    proofs.remember(first, 'a', row('A'));
    proofs.remember(first, 'b', row('B'));
    proofs.remember(second, 'a', row('A2'));
    proofs.forget(first, 'a');
    expect(proofs.get(first, 'a')).toBeUndefined();
    expect(proofs.get(first, 'b')).toEqual(row('B'));
    expect(proofs.get(second, 'a')).toEqual(row('A2'));
    expect(() => proofs.forget({}, 'a')).not.toThrow();
  });

  it(`keeps ${PROOFS_PER_CONNECTION} proofs per connection, dropping the one proved least recently`, () => {
    const proofs = new ConnectionProofs();
    const connection = {};
    const keys = Array.from({ length: PROOFS_PER_CONNECTION }, (_, i) => `k${i}`);
    for (const key of keys) proofs.remember(connection, key, row(key));
    for (const key of keys) expect(proofs.get(connection, key)).toEqual(row(key));
    // Proving k0 again makes it the most recent: the next new key drops k1, not k0.
    proofs.remember(connection, 'k0', row('k0'));
    proofs.remember(connection, 'new', row('new'));
    expect(proofs.get(connection, 'k0')).toEqual(row('k0'));
    expect(proofs.get(connection, 'k1')).toBeUndefined();
    expect(proofs.get(connection, 'new')).toEqual(row('new'));
    for (const key of keys.slice(2)) expect(proofs.get(connection, key)).toEqual(row(key));
  });
});
