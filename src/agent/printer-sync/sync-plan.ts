/**
 * The printer sync plan: what the connector must call on the cloud so that its printers there
 * match the printers it has locally. Pure (no I/O): the printer sync runs the calls in order
 * (sync-executor.ts) and persists the returned state once they all succeeded; nothing to clean up.
 *
 * Rules: identity follows the printer uuid, then the IEEE 1284 device id, then the URI, then the
 * name, so renames and new IP addresses keep the cloud id and tp_id; a printer missing locally is
 * deleted only after a grace period, never when discovery failed, and at most a share of all
 * printers per run; PATCH carries only changed fields; properties and each blob capability are
 * uploaded only when their hash changed (upload-diff.ts). The shapes are in sync-types.ts.
 */
import { diffUploads, stableJson } from './upload-diff.js';

export { stableHash } from './upload-diff.js';

import type {
  CloudStatus,
  LocalPrinter,
  LocalInventory,
  CloudPrinter,
  PrinterSyncRecord,
  SyncState,
  SyncOptions,
  PrinterFields,
  SyncTarget,
  SyncCall,
  SyncPlan,
} from './sync-types.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const CALL_ORDER: SyncCall['kind'][] = ['create', 'put', 'patch', 'upload', 'upload-patch', 'delete'];
const MAX_TP_ID = 2147483646;

/** Online when reachable and not stopped; Offline otherwise. */
export function cloudStatusOf(printer: Pick<LocalPrinter, 'reachable' | 'state'>): CloudStatus {
  return printer.reachable && printer.state !== 'stopped' ? 'Online' : 'Offline';
}

/** Identities that never change with the printer's address: only an equal one matches. */
const FIXED_IDENTITY = /^(config|cups|winspool):/;

function sameIdentity(
  record: PrinterSyncRecord,
  printer: LocalPrinter,
): 'identity' | 'uuid' | 'device' | 'uri' | 'name' | undefined {
  if (record.identity && printer.identity && record.identity === printer.identity) return 'identity';
  if (printer.identity && FIXED_IDENTITY.test(printer.identity)) {
    // A record from before identities were kept still follows a configured printer by its name.
    if (record.identity) return undefined;
    return record.name === printer.name ? 'name' : undefined;
  }
  if (record.uuid && printer.uuid) return record.uuid === printer.uuid ? 'uuid' : undefined;
  if (record.deviceId && printer.deviceId && record.deviceId === printer.deviceId) return 'device';
  if (record.uri === printer.uri) return 'uri';
  if (record.name === printer.name) return 'name';
  return undefined;
}

const RANK = { identity: 0, uuid: 1, device: 2, uri: 3, name: 4 } as const;

/** Pairs each local printer with at most one remembered record, strongest identity first. */
function matchRecords(
  printers: LocalPrinter[],
  records: PrinterSyncRecord[],
): Map<LocalPrinter, PrinterSyncRecord> {
  const pairs: { printer: LocalPrinter; record: PrinterSyncRecord; rank: number }[] = [];
  for (const printer of printers) {
    for (const record of records) {
      const how = sameIdentity(record, printer);
      if (how) pairs.push({ printer, record, rank: RANK[how] });
    }
  }
  pairs.sort((a, b) => a.rank - b.rank);
  const matched = new Map<LocalPrinter, PrinterSyncRecord>();
  const used = new Set<PrinterSyncRecord>();
  for (const { printer, record } of pairs) {
    if (matched.has(printer) || used.has(record)) continue;
    matched.set(printer, record);
    used.add(record);
  }
  return matched;
}

function fieldsOf(printer: LocalPrinter, tpId: number): PrinterFields {
  return {
    name: printer.name,
    status: cloudStatusOf(printer),
    tp_id: tpId,
    location: printer.location ?? '',
    vendor_name: printer.vendorName ?? '',
    model_name: printer.modelName ?? '',
    pnp_id: printer.deviceId ?? '',
    supported_formats: printer.supportedFormats ?? ['PDF'],
  };
}

function changedFields(wanted: PrinterFields, cloud: CloudPrinter): Partial<PrinterFields> {
  const changed: Partial<PrinterFields> = {};
  const current: Record<string, unknown> = { ...cloud };
  for (const [key, value] of Object.entries(wanted) as [keyof PrinterFields, unknown][]) {
    const now = current[key] ?? (key === 'supported_formats' ? [] : '');
    if (stableJson(now) !== stableJson(value)) Object.assign(changed, { [key]: value });
  }
  return changed;
}

class TpIds {
  private next: number;
  constructor(records: PrinterSyncRecord[], cloud: CloudPrinter[]) {
    this.next = Math.max(0, ...records.map((r) => r.tpId), ...cloud.map((c) => c.tp_id)) + 1;
  }
  take(): number {
    if (this.next > MAX_TP_ID) throw new RangeError('tp_id: no free value left below 2147483647');
    return this.next++;
  }
}

function syncPresent(
  printer: LocalPrinter,
  found: PrinterSyncRecord | undefined,
  cloud: CloudPrinter | undefined,
  tpId: number,
  options: SyncOptions,
): { calls: SyncCall[]; record: PrinterSyncRecord } {
  const fields = fieldsOf(printer, tpId);
  const record: PrinterSyncRecord = {
    ...(found ?? { capabilityHashes: {} }),
    cloudId: cloud?.id,
    tpId,
    name: printer.name,
    uri: printer.uri,
    identity: printer.identity ?? found?.identity,
    uuid: printer.uuid ?? found?.uuid,
    deviceId: printer.deviceId ?? found?.deviceId,
    firstMissingAt: undefined,
  };
  const target: SyncTarget = { tpId, cloudId: cloud?.id };
  const calls: SyncCall[] = [];
  const fresh = !cloud;
  if (!cloud) {
    calls.push({ kind: 'create', target, body: fields });
    record.propertyHashes = undefined;
    record.capabilityHashes = {};
  } else if (cloud.connector_id !== options.connectorId) {
    calls.push({ kind: 'put', target, body: { ...fields, connector_id: options.connectorId } });
  } else {
    const changed = changedFields(fields, cloud);
    if (Object.keys(changed).length > 0) calls.push({ kind: 'patch', target, body: changed });
  }
  calls.push(...uploads(printer, record, target, fresh));
  return { calls, record };
}

function uploads(
  printer: LocalPrinter,
  record: PrinterSyncRecord,
  target: SyncTarget,
  fresh: boolean,
): SyncCall[] {
  if (!printer.reachable) return [];
  const { diff, hashes } = diffUploads(printer, record, fresh);
  record.propertyHashes = hashes.propertyHashes;
  record.capabilityHashes = hashes.capabilityHashes;
  switch (diff.mode) {
    case 'none':
      return [];
    case 'full':
      return [{ kind: 'upload', target, properties: diff.properties, capabilities: diff.capabilities }];
    case 'patch':
      return [{ kind: 'upload-patch', target, properties: diff.properties, capabilities: diff.capabilities }];
  }
}

/** The cloud record for a remembered printer: by cloud id, else ours by tp_id, else ours by name. */
function findCloud(
  record: PrinterSyncRecord | undefined,
  printer: LocalPrinter,
  cloud: CloudPrinter[],
  options: SyncOptions,
  claimed: Set<string>,
  remembered: Set<string | undefined>,
): CloudPrinter | undefined {
  // A cloud printer another remembered printer owns is never taken by name or tp_id.
  const free = cloud.filter((c) => !claimed.has(c.id) && (c.id === record?.cloudId || !remembered.has(c.id)));
  if (record?.cloudId) {
    const byId = free.find((c) => c.id === record.cloudId);
    if (byId) return byId;
  }
  const ours = free.filter((c) => c.connector_id === options.connectorId);
  if (record) {
    const byTp = ours.find((c) => c.tp_id === record.tpId);
    if (byTp) return byTp;
  }
  return ours.find((c) => c.name === printer.name);
}

function planMissing(
  missing: PrinterSyncRecord[],
  total: number,
  cloudById: Map<string, CloudPrinter>,
  now: number,
  options: SyncOptions,
): { calls: SyncCall[]; keep: PrinterSyncRecord[]; notes: string[] } {
  const grace = options.gracePeriodMs ?? DAY_MS;
  const share = options.maxDeleteShare ?? 0.25;
  const calls: SyncCall[] = [];
  const notes: string[] = [];
  const keep: PrinterSyncRecord[] = [];
  const due: PrinterSyncRecord[] = [];
  for (const old of missing) {
    const record = { ...old, firstMissingAt: old.firstMissingAt ?? now };
    const cloud = record.cloudId ? cloudById.get(record.cloudId) : undefined;
    if (!cloud) continue;
    if (now - record.firstMissingAt >= grace) due.push(record);
    else keep.push(record);
    if (cloud.status !== 'Offline')
      calls.push({ kind: 'patch', target: target(record), body: { status: 'Offline' } });
  }
  const allowed = Math.max(1, Math.floor(share * total));
  due.sort((a, b) => (a.firstMissingAt ?? 0) - (b.firstMissingAt ?? 0));
  for (const [i, record] of due.entries()) {
    if (i < allowed)
      calls.push({
        kind: 'delete',
        target: target(record),
        reason: `missing locally since ${new Date(record.firstMissingAt ?? now).toISOString()}`,
      });
    else keep.push(record);
  }
  if (due.length > allowed) {
    notes.push(
      `delete: ${due.length} printers are due but at most ${allowed} are deleted per run (no mass delete)`,
    );
  }
  return { calls, keep, notes };
}

/** Our cloud printers that neither a local printer nor the state accounts for (state was lost). */
function orphans(
  cloud: CloudPrinter[],
  state: SyncState,
  claimed: Set<string>,
  options: SyncOptions,
): PrinterSyncRecord[] {
  const known = new Set(state.printers.map((r) => r.cloudId));
  return cloud
    .filter((c) => c.connector_id === options.connectorId && !claimed.has(c.id) && !known.has(c.id))
    .map((c) => ({ cloudId: c.id, tpId: c.tp_id, name: c.name, uri: '', capabilityHashes: {} }));
}

function target(record: PrinterSyncRecord): SyncTarget {
  return { tpId: record.tpId, cloudId: record.cloudId };
}

/**
 * Plans one sync run: local inventory vs the cloud's printers, given what was remembered.
 * Calls come ordered: creates, puts, patches, whole uploads, upload patches, deletes; at most
 * one upload call per printer.
 */
export function planPrinterSync(
  local: LocalInventory,
  cloud: CloudPrinter[],
  state: SyncState,
  now: number,
  options: SyncOptions,
): SyncPlan {
  const tpIds = new TpIds(state.printers, cloud);
  const matched = matchRecords(local.printers, state.printers);
  const claimed = new Set<string>();
  const remembered = new Set(state.printers.map((r) => r.cloudId));
  const calls: SyncCall[] = [];
  const records: PrinterSyncRecord[] = [];
  for (const printer of local.printers) {
    const found = matched.get(printer);
    const cloudPrinter = findCloud(found, printer, cloud, options, claimed, remembered);
    if (cloudPrinter) claimed.add(cloudPrinter.id);
    const tpId = found?.tpId ?? cloudPrinter?.tp_id ?? tpIds.take();
    const result = syncPresent(printer, found, cloudPrinter, tpId, options);
    calls.push(...result.calls);
    records.push(result.record);
  }
  const matchedRecords = new Set(matched.values());
  const missing = state.printers.filter(
    (r) => !matchedRecords.has(r) && !(r.cloudId && claimed.has(r.cloudId)),
  );
  missing.push(...orphans(cloud, state, claimed, options));
  const notes: string[] = [];
  if (!local.discoveryOk) {
    notes.push('discovery failed: printers not seen this run are kept unchanged');
    records.push(...missing);
  } else {
    const cloudById = new Map(cloud.map((c) => [c.id, c]));
    const total = Math.max(state.printers.length, records.length + missing.length);
    const result = planMissing(missing, total, cloudById, now, options);
    calls.push(...result.calls);
    records.push(...result.keep);
    notes.push(...result.notes);
  }
  calls.sort((a, b) => CALL_ORDER.indexOf(a.kind) - CALL_ORDER.indexOf(b.kind));
  return { calls, state: { printers: records }, notes };
}
