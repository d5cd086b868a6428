import { describe, expect, it } from 'vitest';
import { cupsServerOf, syncDiscoverers } from '../../../../src/agent/printer-sync/printer-sync-discovery.js';
import {
  BackendPool,
  describeAll,
  inventoryOf,
  localPrinterOf,
  printerIdentity,
  wantedPrinters,
} from '../../../../src/agent/printer-sync/printer-sync-inventory.js';
import { Redactor } from '../../../../src/log/redaction.js';
import { createLogger, silentLogger } from '../../../../src/log/logger.js';
import { BackendRegistry } from '../../../../src/printing/backend-registry.js';
import type { DiscoveryResult } from '../../../../src/printing/discovery/discovery.js';
import type { PrinterBackend, PrinterDescription } from '../../../../src/printing/printer-backend.js';
import { ippToBlobCapabilities } from '../../../../src/printing/translate/capabilities/blob-capabilities.js';
import { ippToPrinterProperties } from '../../../../src/printing/translate/capabilities/ipp-to-properties.js';
import { printerFixture } from '../../../support/fixture-files.js';

const logger = silentLogger();

const found = (
  source: string,
  printers: { name: string; uri: string; location?: string }[],
): DiscoveryResult => ({
  source,
  ok: true,
  printers: printers.map((p) => ({ ...p, source })),
});

describe('wantedPrinters', () => {
  const cases: {
    title: string;
    configured: { name: string; uri: string; enabled: boolean; location?: string }[];
    discovered: DiscoveryResult[];
    expected: [name: string, uri: string, source: string][];
  }[] = [
    {
      title: 'configured first, then discovered',
      configured: [{ name: 'Desk', uri: 'ipp://desk/ipp/print', enabled: true }],
      discovered: [found('cups', [{ name: 'Lab', uri: 'cups://Lab' }])],
      expected: [
        ['Desk', 'ipp://desk/ipp/print', 'config'],
        ['Lab', 'cups://Lab', 'cups'],
      ],
    },
    {
      title: 'a disabled entry is not wanted',
      configured: [{ name: 'Off', uri: 'ipp://off/', enabled: false }],
      discovered: [],
      expected: [],
    },
    {
      title: 'the configured entry wins for the same URI',
      configured: [{ name: 'Mine', uri: 'cups://Lab', enabled: true }],
      discovered: [found('cups', [{ name: 'Lab', uri: 'cups://Lab' }])],
      expected: [['Mine', 'cups://Lab', 'config']],
    },
    {
      title: 'the first of two printers with one name (any case) is kept',
      configured: [],
      discovered: [
        found('cups', [{ name: 'Office', uri: 'cups://Office' }]),
        found('dnssd', [{ name: 'office', uri: 'ipp://10.0.0.9/ipp/print' }]),
      ],
      expected: [['Office', 'cups://Office', 'cups']],
    },
    {
      title: 'a failed source adds nothing',
      configured: [],
      discovered: [
        { source: 'cups', ok: false, error: 'connection refused' },
        found('dnssd', [{ name: 'N', uri: 'ipp://n/' }]),
      ],
      expected: [['N', 'ipp://n/', 'dnssd']],
    },
  ];
  it.each(cases)('$title', ({ configured, discovered, expected }) => {
    const wanted = wantedPrinters(configured, discovered, logger);
    expect(wanted.map((w) => [w.entry.name, w.entry.uri, w.source])).toEqual(expected);
  });

  it('keeps a discovered location, cut to 255 characters', () => {
    const [wanted] = wantedPrinters(
      [],
      [found('dnssd', [{ name: 'L', uri: 'ipp://l/', location: 'x'.repeat(300) }])],
      logger,
    );
    expect(wanted?.entry.location).toHaveLength(255);
  });
});

describe('printerIdentity', () => {
  it.each<[string, string, string, string | undefined, string]>([
    ['configured: the configured name', 'config', 'Front Desk', 'urn:uuid:1', 'config:front desk'],
    ['CUPS: the queue name', 'cups', 'Office_Laser', 'urn:uuid:1', 'cups:Office_Laser'],
    ['Windows: the printer name', 'winspool', 'HP (Hall)', undefined, 'winspool:HP (Hall)'],
    ['DNS-SD: the printer-uuid when it answered', 'dnssd', 'Hall @ x', 'urn:uuid:ABC', 'uuid:urn:uuid:abc'],
    ['DNS-SD: else the instance name', 'dnssd', 'Hall @ x', undefined, 'dnssd:Hall @ x'],
  ])('%s', (_name, source, name, uuid, expected) => {
    expect(printerIdentity(source, name, uuid)).toBe(expected);
  });
});

describe('localPrinterOf', () => {
  const attrs = printerFixture('hp-color-laserjet-cm3530');
  const description: PrinterDescription = {
    uri: 'ipp://hp/ipp/print',
    name: 'hp',
    makeAndModel: 'HP Color LaserJet CM3530 MFP',
    state: 'processing',
    stateReasons: [],
    uuid: 'urn:uuid:1234',
    deviceId: 'MFG:HP;MDL:CM3530;',
    location: 'Floor 2',
    documentFormats: ['application/pdf'],
    attributes: attrs,
  };

  it('maps a described printer: identity, vendor and model, properties and capability defaults', () => {
    const printer = localPrinterOf({ name: 'HP', uri: 'ipp://hp/ipp/print', enabled: true }, description);
    expect(printer).toEqual({
      name: 'HP',
      uri: 'ipp://hp/ipp/print',
      uuid: 'urn:uuid:1234',
      deviceId: 'MFG:HP;MDL:CM3530;',
      state: 'processing',
      reachable: true,
      location: 'Floor 2',
      vendorName: 'HP',
      modelName: 'Color LaserJet CM3530 MFP',
      supportedFormats: ['PDF', 'RAW'],
      properties: ippToPrinterProperties(attrs),
      capabilities: ippToBlobCapabilities(attrs),
    });
  });

  it('prefers the configured location', () => {
    const printer = localPrinterOf(
      { name: 'HP', uri: 'ipp://hp/', enabled: true, location: 'Desk 4' },
      description,
    );
    expect(printer.location).toBe('Desk 4');
  });

  it('keeps an unanswered printer as unreachable, without properties (it goes Offline, not away)', () => {
    expect(localPrinterOf({ name: 'X', uri: 'ipp://x/', enabled: true }, undefined)).toEqual({
      name: 'X',
      uri: 'ipp://x/',
      state: 'stopped',
      reachable: false,
      location: undefined,
    });
  });
});

describe('describeAll', () => {
  const attrs = printerFixture('hp-color-laserjet-cm3530');
  /** A CUPS raw queue answers, but lists no paper size. */
  const rawAttrs = Object.fromEntries(Object.entries(attrs).filter(([name]) => !name.startsWith('media')));
  const describing = (uri: URL): PrinterBackend =>
    ({
      uri: uri.href,
      describe: async () => ({
        uri: uri.href,
        name: uri.hostname,
        makeAndModel: 'HP Color LaserJet CM3530 MFP',
        state: 'idle',
        stateReasons: [],
        uuid: `urn:uuid:${uri.hostname}`,
        documentFormats: ['application/pdf'],
        attributes: uri.hostname === 'raw' ? rawAttrs : attrs,
      }),
      close: async () => {},
    }) as unknown as PrinterBackend;

  it('keeps a printer whose attributes cannot be translated Offline, with its identity, and says why', async () => {
    const lines: string[] = [];
    const log = createLogger({
      level: 'info',
      redactor: new Redactor(),
      destination: { write: (line: string) => void lines.push(line) },
    });
    const registry = new BackendRegistry();
    registry.register('fake', describing);
    const pool = new BackendPool(registry, { dataDir: '/nonexistent', logger: log });
    const wanted = [
      { entry: { name: 'Raw', uri: 'fake://raw/', enabled: true }, source: 'cups' },
      { entry: { name: 'Good', uri: 'fake://good/', enabled: true }, source: 'cups' },
    ];
    const printers = await describeAll(wanted, pool, log);
    expect(printers[0]).toEqual({
      name: 'Raw',
      uri: 'fake://raw/',
      uuid: 'urn:uuid:raw',
      identity: printerIdentity('cups', 'Raw', 'urn:uuid:raw'),
      state: 'stopped',
      reachable: false,
      location: undefined,
    });
    expect(printers[1]).toMatchObject({ name: 'Good', reachable: true, state: 'idle' });
    const warnings = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(warnings).toEqual([
      expect.objectContaining({
        printer: 'Raw',
        uri: 'fake://raw/',
        error: 'media-supported: must name at least one paper size (or media-col-database)',
        msg: 'printer answered but its attributes cannot be used; kept Offline until they can',
      }),
    ]);
  });
});

describe('inventoryOf', () => {
  it('is ok only when every discovery source answered', () => {
    expect(inventoryOf([], [found('cups', [])]).discoveryOk).toBe(true);
    expect(inventoryOf([], []).discoveryOk).toBe(true);
    expect(
      inventoryOf([], [found('cups', []), { source: 'dnssd', ok: false, error: 'EADDRINUSE' }]).discoveryOk,
    ).toBe(false);
  });
});

describe('sync discovery sources', () => {
  const off = { cups: false, winspool: false, dnssd: false, interval_s: 300, allow: [], deny: [] };

  it('builds the enabled sources in a fixed order', () => {
    expect(syncDiscoverers(off, logger, {}).map((d) => d.source)).toEqual([]);
    expect(
      syncDiscoverers({ ...off, cups: true, dnssd: true, winspool: true }, logger, {}).map((d) => d.source),
    ).toEqual(['cups', 'winspool', 'dnssd']);
  });

  it.each([
    [{}, {}, { host: 'localhost', port: 631 }],
    [{}, { CUPS_SERVER: 'print.lan:8631' }, { host: 'print.lan', port: 8631 }],
    [{ cups_server: '127.0.0.1:6310' }, { CUPS_SERVER: 'print.lan' }, { host: '127.0.0.1', port: 6310 }],
    [{ cups_server: 'cups.example' }, {}, { host: 'cups.example', port: 631 }],
  ])('CUPS server of %j with env %j is %j', (discovery, env, expected) => {
    expect(cupsServerOf(discovery, env)).toEqual(expected);
  });
});
