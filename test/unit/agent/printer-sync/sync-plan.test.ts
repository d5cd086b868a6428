import { blobCapabilities } from '../../../support/blob-fixtures.js';
import { describe, expect, it } from 'vitest';
import { cloudStatusOf, planPrinterSync, stableHash } from '../../../../src/agent/printer-sync/sync-plan.js';
import type {
  CloudPrinter,
  LocalPrinter,
  PrinterSyncRecord,
  SyncCall,
  SyncOptions,
  SyncState,
} from '../../../../src/agent/printer-sync/sync-types.js';
import { propertyHashesOf } from '../../../../src/agent/printer-sync/upload-diff.js';
import type { BlobCapabilities } from '../../../../src/printing/translate/capabilities/blob-capabilities.js';

const CONNECTOR = 'conn-1';
const HOUR = 60 * 60 * 1000;
const NOW = Date.UTC(2026, 0, 10, 12);
const options: SyncOptions = { connectorId: CONNECTOR };

function local(name: string, extra: Partial<LocalPrinter> = {}): LocalPrinter {
  return {
    name,
    uri: `ipp://${name.toLowerCase()}.lan/ipp/print`,
    uuid: `urn:uuid:${name.toLowerCase()}`,
    state: 'idle',
    reachable: true,
    supportedFormats: ['PDF'],
    ...extra,
  };
}

function cloud(id: string, name: string, tp: number, extra: Partial<CloudPrinter> = {}): CloudPrinter {
  return {
    id,
    name,
    status: 'Online',
    tp_id: tp,
    connector_id: CONNECTOR,
    location: '',
    vendor_name: '',
    model_name: '',
    pnp_id: '',
    supported_formats: ['PDF'],
    ...extra,
  };
}

function record(
  name: string,
  cloudId: string | undefined,
  tp: number,
  extra: Partial<PrinterSyncRecord> = {},
): PrinterSyncRecord {
  return {
    cloudId,
    tpId: tp,
    name,
    uri: `ipp://${name.toLowerCase()}.lan/ipp/print`,
    uuid: `urn:uuid:${name.toLowerCase()}`,
    capabilityHashes: {},
    ...extra,
  };
}

/** One short line per call: kind, target, and what it carries. */
function describeCall(call: SyncCall): string {
  const target = call.target.cloudId ?? `tp${call.target.tpId}`;
  switch (call.kind) {
    case 'create':
      return `create ${target} ${call.body.name} ${call.body.status}`;
    case 'put':
      return `put ${target} ${call.body.name} ${call.body.connector_id}`;
    case 'patch':
      return `patch ${target} ${JSON.stringify(call.body)}`;
    case 'upload':
      return `upload ${target} ${[call.properties && 'properties', call.capabilities && 'capabilities'].filter(Boolean).join('+')}`;
    case 'upload-patch':
      return `upload-patch ${target} properties[${Object.keys(call.properties ?? {})}] capabilities[${Object.keys(call.capabilities ?? {})}]`;
    case 'delete':
      return `delete ${target}`;
  }
}

function plan(
  printers: LocalPrinter[],
  cloudList: CloudPrinter[],
  state: SyncState,
  opts: Partial<SyncOptions> = {},
  discoveryOk = true,
) {
  return planPrinterSync({ printers, discoveryOk }, cloudList, state, NOW, { ...options, ...opts });
}

const props = { Driver: 'X' } as unknown as NonNullable<LocalPrinter['properties']>;
const caps: BlobCapabilities = blobCapabilities();
const capHashes = {
  colors: stableHash(caps.colors),
  trays: stableHash(caps.trays),
  options: stableHash(caps.options),
  papers: stableHash(caps.papers),
  resolutions: stableHash(caps.resolutions),
};

interface Case {
  name: string;
  printers: LocalPrinter[];
  cloud: CloudPrinter[];
  state: SyncState;
  opts?: Partial<SyncOptions>;
  discoveryOk?: boolean;
  calls: string[];
}

const A = local('Alpha');
const B = local('Beta');
const missingSince = (h: number) => NOW - h * HOUR;

const cases: Case[] = [
  { name: 'nothing anywhere: no calls', printers: [], cloud: [], state: { printers: [] }, calls: [] },
  {
    name: 'new printer is created with tp_id 1',
    printers: [A],
    cloud: [],
    state: { printers: [] },
    calls: ['create tp1 Alpha Online'],
  },
  {
    name: 'two new printers get tp_ids 1 and 2 in order',
    printers: [A, B],
    cloud: [],
    state: { printers: [] },
    calls: ['create tp1 Alpha Online', 'create tp2 Beta Online'],
  },
  {
    name: 'new tp_id continues after the highest known one',
    printers: [A, B],
    cloud: [cloud('c7', 'Alpha', 7)],
    state: { printers: [record('Alpha', 'c7', 7)] },
    calls: ['create tp8 Beta Online'],
  },
  {
    name: 'unchanged printer: no calls',
    printers: [A],
    cloud: [cloud('c1', 'Alpha', 1)],
    state: { printers: [record('Alpha', 'c1', 1)] },
    calls: [],
  },
  {
    name: 'unreachable printer is created Offline',
    printers: [local('Alpha', { reachable: false })],
    cloud: [],
    state: { printers: [] },
    calls: ['create tp1 Alpha Offline'],
  },
  {
    name: 'stopped printer is created Offline',
    printers: [local('Alpha', { state: 'stopped' })],
    cloud: [],
    state: { printers: [] },
    calls: ['create tp1 Alpha Offline'],
  },
  {
    name: 'processing printer is Online',
    printers: [local('Alpha', { state: 'processing' })],
    cloud: [cloud('c1', 'Alpha', 1)],
    state: { printers: [record('Alpha', 'c1', 1)] },
    calls: [],
  },
  {
    name: 'printer going offline: PATCH status only',
    printers: [local('Alpha', { reachable: false })],
    cloud: [cloud('c1', 'Alpha', 1)],
    state: { printers: [record('Alpha', 'c1', 1)] },
    calls: ['patch c1 {"status":"Offline"}'],
  },
  {
    name: 'printer coming back online: PATCH status only',
    printers: [A],
    cloud: [cloud('c1', 'Alpha', 1, { status: 'Offline' })],
    state: { printers: [record('Alpha', 'c1', 1)] },
    calls: ['patch c1 {"status":"Online"}'],
  },
  {
    name: 'location change: PATCH location only',
    printers: [local('Alpha', { location: 'Floor 2' })],
    cloud: [cloud('c1', 'Alpha', 1)],
    state: { printers: [record('Alpha', 'c1', 1)] },
    calls: ['patch c1 {"location":"Floor 2"}'],
  },
  {
    name: 'vendor and model change: PATCH both',
    printers: [local('Alpha', { vendorName: 'HP', modelName: 'M404' })],
    cloud: [cloud('c1', 'Alpha', 1)],
    state: { printers: [record('Alpha', 'c1', 1)] },
    calls: ['patch c1 {"vendor_name":"HP","model_name":"M404"}'],
  },
  {
    name: 'supported formats change: PATCH formats',
    printers: [local('Alpha', { supportedFormats: ['PDF', 'RAW'] })],
    cloud: [cloud('c1', 'Alpha', 1)],
    state: { printers: [record('Alpha', 'c1', 1)] },
    calls: ['patch c1 {"supported_formats":["PDF","RAW"]}'],
  },
  {
    name: 'device id becomes the pnp_id',
    printers: [local('Alpha', { deviceId: 'MFG:HP;MDL:X;' })],
    cloud: [cloud('c1', 'Alpha', 1)],
    state: { printers: [record('Alpha', 'c1', 1)] },
    calls: ['patch c1 {"pnp_id":"MFG:HP;MDL:X;"}'],
  },
  {
    name: 'rename with the same uuid keeps the cloud id: PATCH name',
    printers: [local('Gamma', { uuid: 'urn:uuid:alpha' })],
    cloud: [cloud('c1', 'Alpha', 1)],
    state: { printers: [record('Alpha', 'c1', 1)] },
    calls: ['patch c1 {"name":"Gamma"}'],
  },
  {
    name: 'new IP with the same uuid: no cloud call',
    printers: [local('Alpha', { uri: 'ipp://10.0.0.99/ipp/print' })],
    cloud: [cloud('c1', 'Alpha', 1)],
    state: { printers: [record('Alpha', 'c1', 1)] },
    calls: [],
  },
  {
    name: 'rename and new IP matched by device id',
    printers: [local('Delta', { uuid: undefined, deviceId: 'MFG:A;MDL:B;SN:1;', uri: 'ipp://10.0.0.5/' })],
    cloud: [cloud('c1', 'Alpha', 1, { pnp_id: 'MFG:A;MDL:B;SN:1;' })],
    state: { printers: [record('Alpha', 'c1', 1, { uuid: undefined, deviceId: 'MFG:A;MDL:B;SN:1;' })] },
    calls: ['patch c1 {"name":"Delta"}'],
  },
  {
    name: 'rename matched by URI when no uuid is known',
    printers: [local('Omega', { uuid: undefined, uri: 'ipp://alpha.lan/ipp/print' })],
    cloud: [cloud('c1', 'Alpha', 1)],
    state: { printers: [record('Alpha', 'c1', 1, { uuid: undefined })] },
    calls: ['patch c1 {"name":"Omega"}'],
  },
  {
    name: 'a different uuid at the same URI is a different printer',
    printers: [local('Alpha', { uuid: 'urn:uuid:other' })],
    cloud: [cloud('c1', 'Alpha', 1)],
    state: { printers: [record('Alpha', 'c1', 1)] },
    calls: ['create tp2 Alpha Online', 'patch c1 {"status":"Offline"}'],
  },
  {
    name: 'a configured printer on a new port with a new uuid keeps its cloud printer (identity = configured name)',
    printers: [
      local('Alpha', {
        identity: 'config:alpha',
        uri: 'ipp://127.0.0.1:40001/ipp/print',
        uuid: 'urn:uuid:new',
      }),
    ],
    cloud: [cloud('c1', 'Alpha', 1)],
    state: { printers: [record('Alpha', 'c1', 1, { identity: 'config:alpha' })] },
    calls: [],
  },
  {
    name: 'a state written before identities follows a configured printer by its name',
    printers: [local('Alpha', { identity: 'config:alpha', uri: 'ipp://10.9.9.9/', uuid: 'urn:uuid:new' })],
    cloud: [cloud('c1', 'Alpha', 1)],
    state: { printers: [record('Alpha', 'c1', 1)] },
    calls: [],
  },
  {
    name: 'a CUPS queue keeps its cloud printer when its device URI changes',
    printers: [
      local('Office', { identity: 'cups:Office', uri: 'cups://localhost:6310/Office', uuid: undefined }),
    ],
    cloud: [cloud('c1', 'Office', 1)],
    state: {
      printers: [record('Office', 'c1', 1, { identity: 'cups:Office', uri: 'cups://localhost:631/Office' })],
    },
    calls: [],
  },
  {
    name: 'two configured printers never trade cloud printers by uuid',
    printers: [local('Beta', { identity: 'config:beta', uuid: 'urn:uuid:alpha' })],
    cloud: [cloud('c1', 'Alpha', 1), cloud('c2', 'Beta', 2)],
    state: {
      printers: [
        record('Alpha', 'c1', 1, { identity: 'config:alpha' }),
        record('Beta', 'c2', 2, { identity: 'config:beta', uuid: 'urn:uuid:beta' }),
      ],
    },
    calls: ['patch c1 {"status":"Offline"}'],
  },
  {
    name: 'a DNS-SD printer renamed on the network is followed by its uuid identity',
    printers: [local('Hall', { identity: 'uuid:urn:uuid:alpha', uri: 'ipp://hall.local/ipp/print' })],
    cloud: [cloud('c1', 'Alpha', 1)],
    state: { printers: [record('Alpha', 'c1', 1, { identity: 'uuid:urn:uuid:alpha' })] },
    calls: ['patch c1 {"name":"Hall"}'],
  },
  {
    name: 'swapped names are followed by uuid',
    printers: [local('Beta', { uuid: 'urn:uuid:alpha' }), local('Alpha', { uuid: 'urn:uuid:beta' })],
    cloud: [cloud('c1', 'Alpha', 1), cloud('c2', 'Beta', 2)],
    state: { printers: [record('Alpha', 'c1', 1), record('Beta', 'c2', 2)] },
    calls: ['patch c1 {"name":"Beta"}', 'patch c2 {"name":"Alpha"}'],
  },
  {
    name: 'lost state: our cloud printer is adopted by name, no duplicate',
    printers: [A],
    cloud: [cloud('c1', 'Alpha', 4)],
    state: { printers: [] },
    calls: [],
  },
  {
    name: 'cloud printer deleted remotely is created again with the same tp_id',
    printers: [A],
    cloud: [],
    state: { printers: [record('Alpha', 'c1', 3)] },
    calls: ['create tp3 Alpha Online'],
  },
  {
    name: 'cloud id changed but tp_id matches ours: adopted',
    printers: [A],
    cloud: [cloud('c9', 'Alpha', 1)],
    state: { printers: [record('Alpha', 'c1', 1)] },
    calls: [],
  },
  {
    name: 'a printer owned by another connector is re-adopted with a PUT',
    printers: [A],
    cloud: [cloud('c1', 'Alpha', 1, { connector_id: 'old-conn' })],
    state: { printers: [record('Alpha', 'c1', 1)] },
    calls: ['put c1 Alpha conn-1'],
  },
  {
    name: 'another connector’s printer with the same name is not taken over',
    printers: [A],
    cloud: [cloud('x1', 'Alpha', 1, { connector_id: 'other' })],
    state: { printers: [] },
    calls: ['create tp2 Alpha Online'],
  },
  {
    name: 'new printer with properties and capabilities uploads them after create',
    printers: [local('Alpha', { properties: props, capabilities: caps })],
    cloud: [],
    state: { printers: [] },
    calls: ['create tp1 Alpha Online', 'upload tp1 properties+capabilities'],
  },
  {
    name: 'unchanged hashes: nothing uploaded',
    printers: [local('Alpha', { properties: props, capabilities: caps })],
    cloud: [cloud('c1', 'Alpha', 1)],
    state: {
      printers: [
        record('Alpha', 'c1', 1, { propertyHashes: propertyHashesOf(props), capabilityHashes: capHashes }),
      ],
    },
    calls: [],
  },
  {
    name: 'changed properties field: a patch of that field only',
    printers: [
      local('Alpha', {
        properties: { Driver: 'Y' } as unknown as LocalPrinter['properties'],
        capabilities: caps,
      }),
    ],
    cloud: [cloud('c1', 'Alpha', 1)],
    state: {
      printers: [
        record('Alpha', 'c1', 1, { propertyHashes: propertyHashesOf(props), capabilityHashes: capHashes }),
      ],
    },
    calls: ['upload-patch c1 properties[Driver] capabilities[]'],
  },
  {
    name: 'one changed capability: a patch of that capability only',
    printers: [local('Alpha', { properties: props, capabilities: { ...caps, options: 5 } })],
    cloud: [cloud('c1', 'Alpha', 1)],
    state: {
      printers: [
        record('Alpha', 'c1', 1, { propertyHashes: propertyHashesOf(props), capabilityHashes: capHashes }),
      ],
    },
    calls: ['upload-patch c1 properties[] capabilities[options]'],
  },
  {
    name: 'known printer without stored hashes (state lost, or reset after a failure): whole upload',
    printers: [local('Alpha', { properties: props, capabilities: caps })],
    cloud: [cloud('c1', 'Alpha', 1)],
    state: { printers: [record('Alpha', 'c1', 1)] },
    calls: ['upload c1 properties+capabilities'],
  },
  {
    name: 'capability hashes known but no property hashes (an older agent’s state): whole upload',
    printers: [local('Alpha', { properties: props, capabilities: caps })],
    cloud: [cloud('c1', 'Alpha', 1)],
    state: { printers: [record('Alpha', 'c1', 1, { capabilityHashes: capHashes })] },
    calls: ['upload c1 properties+capabilities'],
  },
  {
    name: 'a printer without properties uploads its capabilities alone',
    printers: [local('Alpha', { capabilities: caps })],
    cloud: [],
    state: { printers: [] },
    calls: ['create tp1 Alpha Online', 'upload tp1 capabilities'],
  },
  {
    name: 'a field and a capability changed with the printer renamed: PATCH name, then one upload-patch',
    printers: [
      local('Gamma', {
        uuid: 'urn:uuid:alpha',
        properties: { Driver: 'Y' } as unknown as LocalPrinter['properties'],
        capabilities: { ...caps, options: 5 },
      }),
    ],
    cloud: [cloud('c1', 'Alpha', 1)],
    state: {
      printers: [
        record('Alpha', 'c1', 1, { propertyHashes: propertyHashesOf(props), capabilityHashes: capHashes }),
      ],
    },
    calls: ['patch c1 {"name":"Gamma"}', 'upload-patch c1 properties[Driver] capabilities[options]'],
  },
  {
    name: 'unreachable printer uploads no capabilities',
    printers: [local('Alpha', { reachable: false, properties: props, capabilities: caps })],
    cloud: [cloud('c1', 'Alpha', 1)],
    state: { printers: [record('Alpha', 'c1', 1)] },
    calls: ['patch c1 {"status":"Offline"}'],
  },
  {
    name: 'missing printer first seen missing: marked Offline, not deleted',
    printers: [],
    cloud: [cloud('c1', 'Alpha', 1)],
    state: { printers: [record('Alpha', 'c1', 1)] },
    calls: ['patch c1 {"status":"Offline"}'],
  },
  {
    name: 'missing for 23 h: kept',
    printers: [],
    cloud: [cloud('c1', 'Alpha', 1, { status: 'Offline' })],
    state: { printers: [record('Alpha', 'c1', 1, { firstMissingAt: missingSince(23) })] },
    calls: [],
  },
  {
    name: 'missing for 24 h: deleted',
    printers: [],
    cloud: [cloud('c1', 'Alpha', 1, { status: 'Offline' })],
    state: { printers: [record('Alpha', 'c1', 1, { firstMissingAt: missingSince(24) })] },
    calls: ['delete c1'],
  },
  {
    name: 'custom grace period of 1 h',
    printers: [],
    cloud: [cloud('c1', 'Alpha', 1, { status: 'Offline' })],
    state: { printers: [record('Alpha', 'c1', 1, { firstMissingAt: missingSince(2) })] },
    opts: { gracePeriodMs: HOUR },
    calls: ['delete c1'],
  },
  {
    name: 'discovery failed: nothing missing, nothing deleted',
    printers: [],
    cloud: [cloud('c1', 'Alpha', 1)],
    state: { printers: [record('Alpha', 'c1', 1, { firstMissingAt: missingSince(48) })] },
    discoveryOk: false,
    calls: [],
  },
  {
    name: 'discovery failed: present printers still sync',
    printers: [local('Alpha', { location: 'Lab' })],
    cloud: [cloud('c1', 'Alpha', 1), cloud('c2', 'Beta', 2)],
    state: {
      printers: [record('Alpha', 'c1', 1), record('Beta', 'c2', 2, { firstMissingAt: missingSince(48) })],
    },
    discoveryOk: false,
    calls: ['patch c1 {"location":"Lab"}'],
  },
  {
    name: 'printer back before the grace period: missing mark cleared, Online again',
    printers: [A],
    cloud: [cloud('c1', 'Alpha', 1, { status: 'Offline' })],
    state: { printers: [record('Alpha', 'c1', 1, { firstMissingAt: missingSince(5) })] },
    calls: ['patch c1 {"status":"Online"}'],
  },
  {
    name: 'no mass delete: 4 of 8 due, share 0.25 deletes the 2 missing longest',
    printers: [local('E'), local('F'), local('G'), local('H')],
    cloud: ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'].map((n, i) =>
      cloud(`c${i + 1}`, n, i + 1, { status: n < 'E' ? 'Offline' : 'Online' }),
    ),
    state: {
      printers: ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'].map((n, i) =>
        record(n, `c${i + 1}`, i + 1, n < 'E' ? { firstMissingAt: missingSince(30 + i) } : {}),
      ),
    },
    calls: ['delete c4', 'delete c3'],
  },
  {
    name: 'share 0.5 allows 4 deletes of 8',
    printers: [local('E'), local('F'), local('G'), local('H')],
    cloud: ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'].map((n, i) =>
      cloud(`c${i + 1}`, n, i + 1, { status: n < 'E' ? 'Offline' : 'Online' }),
    ),
    state: {
      printers: ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'].map((n, i) =>
        record(n, `c${i + 1}`, i + 1, n < 'E' ? { firstMissingAt: missingSince(30) } : {}),
      ),
    },
    opts: { maxDeleteShare: 0.5 },
    calls: ['delete c1', 'delete c2', 'delete c3', 'delete c4'],
  },
  {
    name: 'the only printer may still be deleted after the grace period',
    printers: [],
    cloud: [cloud('c1', 'Alpha', 1, { status: 'Offline' })],
    state: { printers: [record('Alpha', 'c1', 1, { firstMissingAt: missingSince(25) })] },
    opts: { maxDeleteShare: 0.1 },
    calls: ['delete c1'],
  },
  {
    name: 'missing printer already gone from the cloud: forgotten, no call',
    printers: [],
    cloud: [],
    state: { printers: [record('Alpha', 'c1', 1, { firstMissingAt: missingSince(30) })] },
    calls: [],
  },
  {
    name: 'orphan cloud printer of ours (state lost) is marked Offline, not deleted at once',
    printers: [],
    cloud: [cloud('c5', 'Stray', 5)],
    state: { printers: [] },
    calls: ['patch c5 {"status":"Offline"}'],
  },
  {
    name: 'other connectors’ printers are never touched',
    printers: [],
    cloud: [cloud('x1', 'Theirs', 1, { connector_id: 'other' })],
    state: { printers: [] },
    calls: [],
  },
  {
    name: 'calls are ordered create, patch, properties, delete',
    printers: [local('Beta', { properties: props }), local('Alpha', { location: 'L' })],
    cloud: [cloud('c1', 'Alpha', 1), cloud('c3', 'Old', 3, { status: 'Offline' })],
    state: {
      printers: [record('Alpha', 'c1', 1), record('Old', 'c3', 3, { firstMissingAt: missingSince(40) })],
    },
    calls: ['create tp4 Beta Online', 'patch c1 {"location":"L"}', 'upload tp4 properties', 'delete c3'],
  },
];

describe('planPrinterSync', () => {
  it.each(cases)('$name', (c) => {
    const result = plan(c.printers, c.cloud, c.state, c.opts, c.discoveryOk ?? true);
    expect(result.calls.map(describeCall)).toEqual(c.calls);
  });

  it('keeps tp_id and cloud id in the next state across a rename', () => {
    const result = plan(
      [local('Gamma', { uuid: 'urn:uuid:alpha', uri: 'ipp://10.1.1.1/' })],
      [cloud('c1', 'Alpha', 1)],
      {
        printers: [record('Alpha', 'c1', 1)],
      },
    );
    expect(result.state.printers).toEqual([
      expect.objectContaining({
        cloudId: 'c1',
        tpId: 1,
        name: 'Gamma',
        uri: 'ipp://10.1.1.1/',
        uuid: 'urn:uuid:alpha',
      }),
    ]);
  });

  it('records the first-missing time once and keeps it', () => {
    const first = plan([], [cloud('c1', 'Alpha', 1)], { printers: [record('Alpha', 'c1', 1)] });
    expect(first.state.printers[0]?.firstMissingAt).toBe(NOW);
    const later = planPrinterSync(
      { printers: [], discoveryOk: true },
      [cloud('c1', 'Alpha', 1, { status: 'Offline' })],
      first.state,
      NOW + HOUR,
      options,
    );
    expect(later.state.printers[0]?.firstMissingAt).toBe(NOW);
  });

  it('a deleted printer leaves the state; a held-back one stays with a note', () => {
    const names = ['A', 'B', 'C', 'D'];
    const result = plan(
      [],
      names.map((n, i) => cloud(`c${i}`, n, i + 1, { status: 'Offline' })),
      { printers: names.map((n, i) => record(n, `c${i}`, i + 1, { firstMissingAt: missingSince(48) })) },
    );
    expect(result.calls.map(describeCall)).toEqual(['delete c0']);
    expect(result.state.printers.map((r) => r.name)).toEqual(['B', 'C', 'D']);
    expect(result.notes[0]).toMatch(/no mass delete/);
  });

  it('stores a hash per properties field and per capability after an upload', () => {
    const result = plan([local('Alpha', { properties: props, capabilities: caps })], [], { printers: [] });
    expect(result.state.printers[0]).toMatchObject({
      propertyHashes: { Driver: stableHash('X') },
      capabilityHashes: capHashes,
    });
  });

  describe('one tray fitted to a known printer', () => {
    const trayProps = (trays: string[], defaultTray = trays[0]) =>
      ({
        Driver: 'IPP Everywhere',
        ColorSupported: false,
        PaperFormats: [{ Id: 9, Name: 'A4', XRes: 2100, YRes: 2970, Default: true }],
        Trays: trays.map((Name, i) => ({ Index: i + 1, Name, Default: Name === defaultTray })),
        Default: {
          Paper: 'A4',
          PaperId: 9,
          Tray: defaultTray,
          TrayIndex: trays.indexOf(defaultTray ?? '') + 1,
        },
      }) as unknown as NonNullable<LocalPrinter['properties']>;
    const trayCaps = (trays: string[], defaultTray = trays[0]): BlobCapabilities => ({
      ...caps,
      trays: trays.map((name, i) => ({ index: i + 1, name, default: name === defaultTray })),
    });
    const known = (trays: string[]) =>
      record('Alpha', 'c1', 1, {
        propertyHashes: propertyHashesOf(trayProps(trays)),
        capabilityHashes: {
          ...capHashes,
          trays: stableHash(trayCaps(trays).trays),
        },
      });

    it('one upload-patch carrying only Trays and the trays capability', () => {
      const now = ['Tray 1', 'Tray 2', 'Tray 3'];
      const result = plan(
        [local('Alpha', { properties: trayProps(now), capabilities: trayCaps(now) })],
        [cloud('c1', 'Alpha', 1)],
        { printers: [known(['Tray 1', 'Tray 2'])] },
      );
      expect(result.calls).toEqual([
        {
          kind: 'upload-patch',
          target: { tpId: 1, cloudId: 'c1' },
          properties: { Trays: trayProps(now).Trays },
          capabilities: { trays: trayCaps(now).trays },
        },
      ]);
      expect(result.state.printers[0]?.propertyHashes).toEqual(propertyHashesOf(trayProps(now)));
      expect(result.state.printers[0]?.capabilityHashes.trays).toBe(stableHash(trayCaps(now).trays));
    });

    it('a moved default tray adds Default, nothing else', () => {
      const trays = ['Tray 1', 'Tray 2'];
      const result = plan(
        [local('Alpha', { properties: trayProps(trays, 'Tray 2'), capabilities: trayCaps(trays, 'Tray 2') })],
        [cloud('c1', 'Alpha', 1)],
        { printers: [known(trays)] },
      );
      expect(result.calls.map(describeCall)).toEqual([
        'upload-patch c1 properties[Trays,Default] capabilities[trays]',
      ]);
    });

    it('nothing changed: no call', () => {
      const trays = ['Tray 1', 'Tray 2'];
      const result = plan(
        [local('Alpha', { properties: trayProps(trays), capabilities: trayCaps(trays) })],
        [cloud('c1', 'Alpha', 1)],
        { printers: [known(trays)] },
      );
      expect(result.calls).toEqual([]);
    });

    it('a new printer with the same trays gets the whole upload (PUT), not a patch', () => {
      const trays = ['Tray 1', 'Tray 2'];
      const result = plan(
        [local('Alpha', { properties: trayProps(trays), capabilities: trayCaps(trays) })],
        [],
        { printers: [known(trays)] },
      );
      expect(result.calls.map((c) => c.kind)).toEqual(['create', 'upload']);
      expect(result.calls[1]).toMatchObject({ properties: trayProps(trays), capabilities: trayCaps(trays) });
    });
  });

  it('notes a failed discovery', () => {
    expect(plan([], [], { printers: [] }, {}, false).notes).toEqual([
      'discovery failed: printers not seen this run are kept unchanged',
    ]);
  });

  it.each([
    [{ reachable: true, state: 'idle' }, 'Online'],
    [{ reachable: true, state: 'processing' }, 'Online'],
    [{ reachable: true, state: 'stopped' }, 'Offline'],
    [{ reachable: false, state: 'idle' }, 'Offline'],
  ] as const)('cloudStatusOf(%j) is %s', (printer, status) => {
    expect(cloudStatusOf(printer)).toBe(status);
  });

  it('stableHash ignores key order', () => {
    expect(stableHash({ a: 1, b: [1, { c: 2, d: 3 }] })).toBe(stableHash({ b: [1, { d: 3, c: 2 }], a: 1 }));
    expect(stableHash({ a: 1 })).not.toBe(stableHash({ a: 2 }));
  });
});
