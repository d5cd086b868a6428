import { EventEmitter } from 'node:events';
import dnsPacket from 'dns-packet';
import { describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../../../src/log/logger.js';
import { DnsSdDiscoverer, type MdnsSocket } from '../../../../src/printing/discovery/dnssd-discovery.js';
import {
  incompleteInstances,
  instanceLabel,
  type MdnsRecord,
  parseTxt,
  printersFromRecords,
} from '../../../../src/printing/discovery/dnssd-records.js';

const txt = (...entries: string[]) => entries.map((e) => Buffer.from(e));
const UUID = 'urn:uuid:3a8f1e2c-5d6b-4f7a-9c0e-1b2d3e4f5a6b';

/** What an office printer announces (as a multicast-dns response decodes). */
function printerRecords(): MdnsRecord[] {
  return [
    { name: '_ipp._tcp.local', type: 'PTR', data: 'HP Color LaserJet M479._ipp._tcp.local' },
    { name: '_ipps._tcp.local', type: 'PTR', data: 'HP Color LaserJet M479._ipps._tcp.local' },
    {
      name: 'HP Color LaserJet M479._ipp._tcp.local',
      type: 'SRV',
      data: { target: 'NPI3F2A1B.local', port: 631 },
    },
    {
      name: 'HP Color LaserJet M479._ipps._tcp.local',
      type: 'SRV',
      data: { target: 'NPI3F2A1B.local', port: 443 },
    },
    {
      name: 'HP Color LaserJet M479._ipp._tcp.local',
      type: 'TXT',
      data: txt(
        'txtvers=1',
        'rp=ipp/print',
        'ty=HP Color LaserJet MFP M479fdw',
        `UUID=${UUID.slice(9)}`,
        'pdl=application/pdf,image/urf',
        'note=Floor 2',
      ),
    },
    {
      name: 'HP Color LaserJet M479._ipps._tcp.local',
      type: 'TXT',
      data: txt('rp=ipp/print', 'ty=HP Color LaserJet MFP M479fdw', `UUID=${UUID.slice(9)}`),
    },
    { name: 'NPI3F2A1B.local', type: 'A', data: '192.168.1.40' },
    { name: '_ipp._tcp.local', type: 'PTR', data: 'Brother HL\\.L2350DW._ipp._tcp.local' },
    {
      name: 'Brother HL\\.L2350DW._ipp._tcp.local',
      type: 'SRV',
      data: { target: 'brn3c2af4.local', port: 631 },
    },
    {
      name: 'Brother HL\\.L2350DW._ipp._tcp.local',
      type: 'TXT',
      data: txt('rp=/ipp/print', 'ty=Brother HL-L2350DW'),
    },
  ];
}

describe('DNS-SD records', () => {
  it.each([
    [
      txt('rp=ipp/print', 'ty=A=B', 'Color=T', 'empty'),
      { rp: 'ipp/print', ty: 'A=B', color: 'T', empty: '' },
    ],
    [txt('rp=first', 'RP=second'), { rp: 'first' }],
    ['single=string', { single: 'string' }],
    [undefined, {}],
  ])('parseTxt %#', (data, expected) => {
    expect(parseTxt(data)).toEqual(expected);
  });

  it.each([
    ['Office._ipp._tcp.local', 'Office'],
    ['Office._IPPS._tcp.local', 'Office'],
    ['Brother HL\\.L2350DW._ipp._tcp.local', 'Brother HL.L2350DW'],
    ['Caf\\195\\169._ipp._tcp.local', 'Caf\u00c3\u00a9'],
  ])('instanceLabel %s', (instance, label) => {
    expect(instanceLabel(instance)).toBe(label);
  });

  it('builds one printer per device, ipps preferred, addresses when known', () => {
    expect(printersFromRecords(printerRecords())).toEqual([
      {
        name: 'Brother HL.L2350DW',
        uri: 'ipp://brn3c2af4.local:631/ipp/print',
        source: 'dnssd',
        makeAndModel: 'Brother HL-L2350DW',
        location: undefined,
        uuid: undefined,
        documentFormats: [],
      },
      {
        name: 'HP Color LaserJet M479',
        uri: 'ipps://192.168.1.40:443/ipp/print',
        source: 'dnssd',
        makeAndModel: 'HP Color LaserJet MFP M479fdw',
        location: 'Floor 2',
        uuid: UUID.slice(9),
        documentFormats: ['application/pdf', 'image/urf'],
      },
    ]);
  });

  it('uses host names when asked, and IPv6 addresses in brackets', () => {
    const records = printerRecords().filter((r) => !r.name.includes('_ipps'));
    expect(printersFromRecords(records, { useAddresses: false }).map((p) => p.uri)).toEqual([
      'ipp://brn3c2af4.local:631/ipp/print',
      'ipp://NPI3F2A1B.local:631/ipp/print',
    ]);
    const v6 = [
      ...records.filter((r) => r.type !== 'A'),
      { name: 'NPI3F2A1B.local', type: 'AAAA', data: 'fe80::1' },
    ];
    expect(printersFromRecords(v6).find((p) => p.name.startsWith('HP'))).toMatchObject({
      uri: 'ipp://[fe80::1]:631/ipp/print',
      documentFormats: ['application/pdf', 'image/urf'],
      location: 'Floor 2',
    });
  });

  it('skips instances without SRV and lists them as incomplete', () => {
    const records: MdnsRecord[] = [{ name: '_ipp._tcp.local', type: 'PTR', data: 'Lonely._ipp._tcp.local' }];
    expect(printersFromRecords(records)).toEqual([]);
    expect(incompleteInstances(records)).toEqual(['Lonely._ipp._tcp.local']);
    expect(incompleteInstances(printerRecords())).toEqual([]);
  });
});

/** A stand-in for the LAN: answers queries with encoded-then-decoded DNS packets, like multicast-dns. */
class FakeLan extends EventEmitter implements MdnsSocket {
  readonly queries: { name: string; type: string }[][] = [];
  destroyed = false;

  constructor(private readonly answer: (q: { name: string; type: string }) => MdnsRecord[]) {
    super();
  }

  query(query: { questions: { name: string; type: string }[] }): void {
    this.queries.push(query.questions);
    const answers = query.questions.flatMap((q) => this.answer(q));
    if (answers.length === 0) return;
    const wire = dnsPacket.encode({ type: 'response', answers: answers as dnsPacket.Answer[] });
    setImmediate(() => this.emit('response', dnsPacket.decode(wire)));
  }

  destroy(callback?: () => void): void {
    this.destroyed = true;
    callback?.();
  }
}

/**
 * Runs a discovery whose browse window closes only once the fake LAN's answers (each delivered on
 * setImmediate) and the follow-up queries they cause have all happened: the window's timeout is
 * a fake one, moved on by hand. With a real one a stalled test process (a busy machine) could
 * see the window close before an answer that was already due.
 */
async function discoverSettled(discoverer: DnsSdDiscoverer, browseMs: number) {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  try {
    const pending = discoverer.discover();
    for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setImmediate(resolve));
    await vi.advanceTimersByTimeAsync(browseMs);
    return await pending;
  } finally {
    vi.useRealTimers();
  }
}

describe('DnsSdDiscoverer', () => {
  const all = printerRecords().map((r) => ({ ...r, ttl: 120, class: 'IN' }));

  it('browses both services, asks for missing SRV/TXT, and closes its socket', async () => {
    const lan = new FakeLan((q) =>
      q.type === 'PTR'
        ? all.filter((r) => r.type === 'PTR' && r.name === q.name)
        : all.filter((r) => r.name === q.name && r.type === q.type),
    );
    const discoverer = new DnsSdDiscoverer({
      logger: silentLogger(),
      browseMs: 50,
      useAddresses: false,
      createSocket: () => lan,
    });
    const result = await discoverSettled(discoverer, 50);
    expect(result.ok).toBe(true);
    expect(result.ok && result.printers.map((p) => [p.name, p.uri])).toEqual([
      ['Brother HL.L2350DW', 'ipp://brn3c2af4.local:631/ipp/print'],
      ['HP Color LaserJet M479', 'ipps://NPI3F2A1B.local:443/ipp/print'],
    ]);
    expect(lan.queries[0]).toEqual([
      { name: '_ipp._tcp.local', type: 'PTR' },
      { name: '_ipps._tcp.local', type: 'PTR' },
    ]);
    expect(
      lan.queries
        .slice(1)
        .flat()
        .map((q) => q.type),
    ).toEqual(expect.arrayContaining(['SRV', 'TXT']));
    expect(lan.destroyed).toBe(true);
  });

  it('reports a socket error as an error result, never as no printers', async () => {
    const lan = new FakeLan(() => []);
    const discoverer = new DnsSdDiscoverer({ logger: silentLogger(), browseMs: 20, createSocket: () => lan });
    setImmediate(() => lan.emit('error', new Error('bind EADDRINUSE 0.0.0.0:5353')));
    expect(await discoverSettled(discoverer, 20)).toEqual({
      source: 'dnssd',
      ok: false,
      error: 'bind EADDRINUSE 0.0.0.0:5353',
    });
    expect(lan.destroyed).toBe(true);
  });
});
