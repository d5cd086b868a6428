import { blobCapabilities } from '../../../support/blob-fixtures.js';
import { describe, expect, it } from 'vitest';
import type { PrinterSyncClient } from '../../../../src/agent/printer-sync/printer-sync-client.js';
import { executeSyncPlan } from '../../../../src/agent/printer-sync/sync-executor.js';
import { planPrinterSync } from '../../../../src/agent/printer-sync/sync-plan.js';
import type {
  CloudPrinter,
  LocalPrinter,
  SyncPlan,
  SyncState,
} from '../../../../src/agent/printer-sync/sync-types.js';
import type { ChannelClient } from '../../../../src/client/channel-client.js';
import { HttpError } from '../../../../src/client/http-base.js';
import { silentLogger } from '../../../../src/log/logger.js';
import type { BlobCapabilities } from '../../../../src/printing/translate/capabilities/blob-capabilities.js';
import type { PrinterPropertiesPatch } from '../../../../src/protocol/connector-channel.js';
import type { PrinterCapabilityProperties } from '../../../../src/protocol/printer-properties.js';

const CONNECTOR = 'conn-1';
const NOW = Date.UTC(2026, 0, 10, 12);

const caps = (trays: string[]): BlobCapabilities =>
  blobCapabilities({
    trays: trays.map((name, index) => ({ index: index + 1, name, default: index === 0 })),
    options: 1,
  });

const props = (trays: string[]) =>
  ({
    Driver: 'Test',
    Trays: trays.map((Name, i) => ({ Index: i + 1, Name, Default: i === 0 })),
  }) as PrinterCapabilityProperties;

function printer(name: string, trays = ['Tray 1']): LocalPrinter {
  return {
    name,
    uri: `ipp://${name}.lan/ipp/print`,
    uuid: `urn:uuid:${name}`,
    state: 'idle',
    reachable: true,
    properties: props(trays),
    capabilities: caps(trays),
  };
}

/** Records every call; `failOn` makes the named call kind (for the named printer) fail. */
function fakeCloud(failOn: { kind?: string; name?: string; cloudId?: string; status?: number } = {}) {
  const calls: string[] = [];
  const uploads: { id: string; defaults: BlobCapabilities }[] = [];
  const patches: { id: string; body: PrinterPropertiesPatch }[] = [];
  let created = 0;
  const fail = (kind: string, key: string) => {
    if (failOn.kind === kind && (failOn.name === key || failOn.cloudId === key))
      throw new HttpError(failOn.status ?? 400, `${kind} refused`);
  };
  const channel = {
    createPrinter: async (_c: string, body: { name: string }) => {
      calls.push(`create ${body.name}`);
      fail('create', body.name);
      created++;
      return { id: `cloud-${body.name}-${created}` };
    },
    putPrinter: async (_c: string, id: string) => void calls.push(`put ${id}`),
    patchPrinter: async (_c: string, id: string, body: object) => {
      calls.push(`patch ${id} ${Object.keys(body).join(',')}`);
      fail('patch', id);
    },
    uploadProperties: async (
      _c: string,
      id: string,
      _p: unknown,
      _s: unknown,
      defaults?: BlobCapabilities,
    ) => {
      calls.push(defaults ? `properties+capabilities ${id}` : `properties ${id}`);
      fail('upload', id);
      if (defaults) uploads.push({ id, defaults });
    },
    patchProperties: async (_c: string, id: string, body: PrinterPropertiesPatch) => {
      const carried = (part?: object) => Object.keys(part ?? {}).join(',');
      calls.push(
        `PATCH ${id} properties[${carried(body.properties)}] blob[${carried(body.blob_capabilities)}]`,
      );
      fail('upload-patch', id);
      patches.push({ id, body });
    },
    deletePrinter: async (_c: string, id: string) => {
      calls.push(`delete ${id}`);
      fail('delete', id);
    },
  } as unknown as ChannelClient;
  const client = {
    uploadBlobDefaults: async (id: string, defaults: BlobCapabilities) => {
      calls.push(`capabilities ${id}`);
      fail('upload', id);
      uploads.push({ id, defaults });
    },
  } as unknown as PrinterSyncClient;
  return { channel, client, calls, uploads, patches };
}

function run(plan: SyncPlan, previous: SyncState, cloud: ReturnType<typeof fakeCloud>) {
  return executeSyncPlan(plan, previous, NOW, {
    connectorId: CONNECTOR,
    channel: cloud.channel,
    client: cloud.client,
    logger: silentLogger(),
  });
}

const planFor = (local: LocalPrinter[], cloudList: CloudPrinter[], state: SyncState) =>
  planPrinterSync({ printers: local, discoveryOk: true }, cloudList, state, NOW, { connectorId: CONNECTOR });

/** The cloud's list after a first sync of `local` (every printer created and uploaded). */
async function syncedOnce(local: LocalPrinter[]): Promise<{ state: SyncState; cloudList: CloudPrinter[] }> {
  const outcome = await run(planFor(local, [], { printers: [] }), { printers: [] }, fakeCloud());
  const cloudList = outcome.state.printers.map((r) => ({
    id: r.cloudId as string,
    name: r.name,
    status: 'Online',
    tp_id: r.tpId,
    connector_id: CONNECTOR,
    supported_formats: ['PDF'],
  }));
  return { state: outcome.state, cloudList };
}

describe('executeSyncPlan', () => {
  it('creates, then uploads properties with the five capability defaults in one request per printer', async () => {
    const local = [printer('a'), printer('b')];
    const plan = planPrinterSync({ printers: local, discoveryOk: true }, [], { printers: [] }, NOW, {
      connectorId: CONNECTOR,
    });
    const cloud = fakeCloud();
    const outcome = await run(plan, { printers: [] }, cloud);
    expect(outcome.failed).toEqual([]);
    expect(outcome.writes).toEqual({ create: 2, upload: 2 });
    expect(cloud.uploads.map((u) => u.defaults)).toEqual([caps(['Tray 1']), caps(['Tray 1'])]);
    expect(cloud.calls.filter((c) => c.includes('cloud-a'))).toEqual(['properties+capabilities cloud-a-1']);
    expect(outcome.state.printers.map((r) => r.cloudId).sort()).toEqual(['cloud-a-1', 'cloud-b-2'].sort());
    expect(
      outcome.state.printers.every(
        (r) =>
          Object.keys(r.propertyHashes ?? {}).length === 2 && Object.keys(r.capabilityHashes).length === 5,
      ),
    ).toBe(true);
    expect(outcome.changed.sort()).toEqual(['cloud-a-1', 'cloud-b-2'].sort());
  });

  it('one tray changed: ONE PATCH with only Trays and the trays capability, nothing else', async () => {
    const { state, cloudList } = await syncedOnce([printer('a')]);
    const after = [printer('a', ['Tray 1', 'Tray 2'])];
    const cloud = fakeCloud();
    const outcome = await run(planFor(after, cloudList, state), state, cloud);
    const id = cloudList[0]?.id;
    expect(cloud.calls).toEqual([`PATCH ${id} properties[Trays] blob[trays]`]);
    expect(cloud.patches[0]?.body).toEqual({
      properties: { Trays: props(['Tray 1', 'Tray 2']).Trays },
      blob_capabilities: { trays: caps(['Tray 1', 'Tray 2']).trays },
    });
    expect(outcome.writes).toEqual({ 'upload-patch': 1 });
    expect(outcome.changed).toEqual([id]);

    const again = fakeCloud();
    const quiet = await run(planFor(after, cloudList, outcome.state), outcome.state, again);
    expect(again.calls).toEqual([]);
    expect(quiet.writes).toEqual({});
  });

  it('a failed PATCH forgets only the hashes it carried, so the next run sends the same PATCH', async () => {
    const { state, cloudList } = await syncedOnce([printer('a')]);
    const id = cloudList[0]?.id as string;
    const after = [printer('a', ['Tray 1', 'Tray 2'])];
    const failing = fakeCloud({ kind: 'upload-patch', cloudId: id, status: 400 });
    const failed = await run(planFor(after, cloudList, state), state, failing);
    expect(failed.failed).toEqual([
      { tpId: 1, kind: 'upload-patch', error: expect.stringContaining('refused') },
    ]);
    const record = failed.state.printers[0];
    expect(Object.keys(record?.propertyHashes ?? {})).toEqual(['Driver']);
    expect(Object.keys(record?.capabilityHashes ?? {}).sort()).toEqual([
      'colors',
      'options',
      'papers',
      'resolutions',
    ]);

    const retry = fakeCloud();
    const retried = await run(planFor(after, cloudList, failed.state), failed.state, retry);
    expect(retry.calls).toEqual([`PATCH ${id} properties[Trays] blob[trays]`]);
    expect(retried.failed).toEqual([]);
    expect(Object.keys(retried.state.printers[0]?.capabilityHashes ?? {})).toHaveLength(5);
  });

  it('a failed whole upload forgets every hash, so the next run sends the whole PUT again', async () => {
    const local = [printer('a')];
    const first = fakeCloud({ kind: 'upload', cloudId: 'cloud-a-1' });
    const failed = await run(planFor(local, [], { printers: [] }), { printers: [] }, first);
    expect(failed.state.printers[0]).toMatchObject({ propertyHashes: undefined, capabilityHashes: {} });
    const cloudList = [
      {
        id: 'cloud-a-1',
        name: 'a',
        status: 'Online',
        tp_id: 1,
        connector_id: CONNECTOR,
        supported_formats: ['PDF'],
      },
    ];
    const retry = fakeCloud();
    await run(planFor(local, cloudList, failed.state), failed.state, retry);
    expect(retry.calls).toEqual(['properties+capabilities cloud-a-1']);
    expect(retry.uploads[0]?.defaults).toEqual(caps(['Tray 1']));
  });

  it('stops a failing printer only, and forgets the hashes of uploads that did not happen', async () => {
    const local = [printer('a'), printer('b')];
    const plan = planPrinterSync({ printers: local, discoveryOk: true }, [], { printers: [] }, NOW, {
      connectorId: CONNECTOR,
    });
    const cloud = fakeCloud({ kind: 'upload', cloudId: 'cloud-a-1' });
    const outcome = await run(plan, { printers: [] }, cloud);
    expect(outcome.failed).toEqual([
      { tpId: expect.any(Number), kind: 'upload', error: expect.stringContaining('refused') },
    ]);
    expect(cloud.uploads.map((u) => u.id)).toEqual(['cloud-b-2']);
    expect(cloud.calls).toContain('properties+capabilities cloud-b-2');
    const a = outcome.state.printers.find((r) => r.name === 'a');
    const b = outcome.state.printers.find((r) => r.name === 'b');
    expect(a).toMatchObject({ cloudId: 'cloud-a-1', propertyHashes: undefined, capabilityHashes: {} });
    expect(b?.propertyHashes).toBeDefined();
  });

  it('keeps a record whose create failed without a cloud id, so the next run creates it', async () => {
    const local = [printer('a')];
    const plan = planPrinterSync({ printers: local, discoveryOk: true }, [], { printers: [] }, NOW, {
      connectorId: CONNECTOR,
    });
    const outcome = await run(plan, { printers: [] }, fakeCloud({ kind: 'create', name: 'a' }));
    expect(outcome.state.printers).toEqual([
      expect.objectContaining({
        name: 'a',
        cloudId: undefined,
        propertyHashes: undefined,
        capabilityHashes: {},
      }),
    ]);
    expect(outcome.changed).toEqual([]);
  });

  it('keeps the record of a failed delete (retried next run) and treats 404 as already deleted', async () => {
    const previous: SyncState = {
      printers: [
        {
          cloudId: 'gone-1',
          tpId: 1,
          name: 'g1',
          uri: 'ipp://g1/',
          capabilityHashes: {},
          firstMissingAt: NOW - 1e9,
        },
        {
          cloudId: 'gone-2',
          tpId: 2,
          name: 'g2',
          uri: 'ipp://g2/',
          capabilityHashes: {},
          firstMissingAt: NOW - 1e9,
        },
      ],
    };
    const cloudList = previous.printers.map((r) => ({
      id: r.cloudId as string,
      name: r.name,
      status: 'Offline',
      tp_id: r.tpId,
      connector_id: CONNECTOR,
    }));
    const plan = planPrinterSync({ printers: [], discoveryOk: true }, cloudList, previous, NOW, {
      connectorId: CONNECTOR,
      maxDeleteShare: 1,
    });
    expect(plan.calls.map((c) => c.kind)).toEqual(['delete', 'delete']);
    const failing = await run(plan, previous, fakeCloud({ kind: 'delete', cloudId: 'gone-1', status: 409 }));
    expect(failing.state.printers).toEqual([
      expect.objectContaining({ cloudId: 'gone-1', tpId: 1, firstMissingAt: NOW - 1e9 }),
    ]);
    const missing = await run(plan, previous, fakeCloud({ kind: 'delete', cloudId: 'gone-1', status: 404 }));
    expect(missing.failed).toEqual([]);
    expect(missing.state.printers).toEqual([]);
  });
});
