/** BackendRegistry: scheme lookup and clear errors (no I/O: backends connect only when used). */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/lib/errors.js';
import { createLogger } from '../../../src/log/logger.js';
import { BackendRegistry, defaultBackendRegistry } from '../../../src/printing/backend-registry.js';
import { IppBackend } from '../../../src/printing/ipp/ipp-backend.js';
import { parseIppTarget } from '../../../src/printing/ipp/ipp-transport.js';
import { VirtualBackend } from '../../../src/printing/virtual/virtual-backend.js';

const context = { dataDir: '/tmp/printrelay-test', logger: createLogger({ level: 'silent', pretty: false }) };

describe('BackendRegistry', () => {
  it('knows ipp, ipps and virtual by default', () => {
    const registry = defaultBackendRegistry();
    expect(registry.schemes()).toEqual(expect.arrayContaining(['ipp', 'ipps', 'virtual']));
    expect(registry.create('ipp://printer.local/ipp/print', context)).toBeInstanceOf(IppBackend);
    expect(registry.create('IPPS://printer.local:8443/ipp/print', context)).toBeInstanceOf(IppBackend);
    expect(registry.create('virtual://front-desk', context)).toBeInstanceOf(VirtualBackend);
  });

  it('names the scheme it does not know', () => {
    expect(() => defaultBackendRegistry().create('lpd://queue', context)).toThrow(
      /unknown printer scheme 'lpd'/,
    );
    expect(() => defaultBackendRegistry().create('not a uri', context)).toThrow(ValidationError);
  });

  it('lets other parts register schemes', () => {
    const registry = new BackendRegistry();
    const made: string[] = [];
    registry.register('cups:', (url) => {
      made.push(url.hostname);
      return defaultBackendRegistry().create('virtual://x', context);
    });
    registry.create('cups://office', context);
    expect(made).toEqual(['office']);
  });

  it('rejects bad virtual names and bad TLS options with the field and rule', () => {
    expect(() => defaultBackendRegistry().create('virtual://a%20b', context)).toThrow(/virtual printer name/);
    expect(() => parseIppTarget('ipps://p/ipp/print?tls-verify=maybe')).toThrow(
      /tls-verify must be true or false/,
    );
    expect(() => parseIppTarget('ipps://p/ipp/print?tls-fingerprint=zz')).toThrow(/tls-fingerprint/);
  });

  it('parses ipp targets: default port 631, query removed from printer-uri', () => {
    expect(parseIppTarget('ipps://p.local/ipp/print?tls-verify=true')).toMatchObject({
      printerUri: 'ipps://p.local/ipp/print',
      port: 631,
      secure: true,
      tlsVerify: true,
    });
    expect(parseIppTarget('ipp://[::1]:8631/ipp/print')).toMatchObject({
      host: '::1',
      port: 8631,
      secure: false,
    });
  });
});
