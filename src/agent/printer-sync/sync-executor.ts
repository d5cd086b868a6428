/**
 * Runs the calls of a printer sync plan against the cloud. Calls about one printer run in the
 * plan's order (create, put, patch, upload or upload-patch, delete); different printers run side
 * by side (bounded). An `upload` is ONE PUT of the whole properties with the five blob
 * capability defaults; an `upload-patch` is ONE PATCH with only the changed property fields and
 * capabilities. A failing call stops only that printer's remaining calls, and its record is
 * corrected so the next run retries exactly what did not happen: the hashes a call that did not
 * go through covered are forgotten (all of them for a create or an upload, the carried fields and
 * capabilities for an upload-patch), a failed delete keeps the record. Holds nothing.
 */
import type { ChannelClient } from '../../client/channel-client.js';
import { HttpError } from '../../client/http-base.js';
import { errorMessage } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type { PrinterSyncClient } from './printer-sync-client.js';
import type { PrinterSyncRecord, SyncCall, SyncPlan, SyncState } from './sync-types.js';

/** What the executor calls and reads; all owned by the caller. */
export interface SyncExecutorDeps {
  connectorId: string;
  channel: ChannelClient;
  client: PrinterSyncClient;
  logger: Logger;
  /** Printers synced side by side (default 8). */
  concurrency?: number;
  signal?: AbortSignal;
}

/** One call that failed. */
export interface FailedSyncCall {
  tpId: number;
  kind: SyncCall['kind'];
  error: string;
}

/** What a run did: the state to persist, the write requests sent and the failures. */
export interface SyncOutcome {
  state: SyncState;
  /** Write requests sent, by call kind (each call is one request). */
  writes: Record<string, number>;
  failed: FailedSyncCall[];
  /** Cloud ids whose capabilities changed this run (create or upload). */
  changed: string[];
}

interface Chain {
  tpId: number;
  calls: SyncCall[];
  cloudId?: string;
  done: Set<SyncCall['kind']>;
  failed?: FailedSyncCall;
}

/** Runs a plan; resolves with the state to persist (never rejects for a failing call). */
export async function executeSyncPlan(
  plan: SyncPlan,
  previous: SyncState,
  now: number,
  deps: SyncExecutorDeps,
): Promise<SyncOutcome> {
  const chains = chainsOf(plan.calls);
  const writes: Record<string, number> = {};
  const queue = [...chains.values()];
  const worker = async () => {
    for (let chain = queue.shift(); chain; chain = queue.shift()) await runChain(chain, deps, writes);
  };
  const workers = Math.max(1, Math.min(deps.concurrency ?? 8, queue.length));
  await Promise.all(Array.from({ length: workers }, worker));
  const failed = [...chains.values()].flatMap((c) => (c.failed ? [c.failed] : []));
  const changed = [...chains.values()]
    .filter((c) => c.cloudId && (c.done.has('create') || c.done.has('upload') || c.done.has('upload-patch')))
    .map((c) => c.cloudId as string);
  return { state: correctedState(plan, previous, chains, now), writes, failed, changed };
}

function chainsOf(calls: SyncCall[]): Map<number, Chain> {
  const chains = new Map<number, Chain>();
  for (const call of calls) {
    const tpId = call.target.tpId;
    let chain = chains.get(tpId);
    if (!chain) {
      chain = { tpId, calls: [], cloudId: call.target.cloudId, done: new Set() };
      chains.set(tpId, chain);
    }
    chain.calls.push(call);
  }
  return chains;
}

async function runChain(chain: Chain, deps: SyncExecutorDeps, writes: Record<string, number>): Promise<void> {
  const log = deps.logger.child({ printer: chain.cloudId ?? `tp_id ${chain.tpId}` });
  for (const call of chain.calls) {
    try {
      await runCall(call, chain, deps);
      chain.done.add(call.kind);
      writes[call.kind] = (writes[call.kind] ?? 0) + 1;
    } catch (error) {
      if (deps.signal?.aborted) throw error;
      const clash = nameClash(call, error);
      chain.failed = { tpId: chain.tpId, kind: call.kind, error: clash ?? errorMessage(error) };
      if (clash) log.error({ call: call.kind, error: clash }, 'printer not registered: name taken');
      else
        log.warn(
          { call: call.kind, error: chain.failed.error },
          'printer sync call failed; retried next run',
        );
      return;
    }
  }
}

/**
 * The service refuses a second printer of one name in an organization. When the printer that
 * has the name is not this connector's (ours would have been matched and updated), the printer
 * stays unregistered until one of the two is renamed; the text says so (docs/agent.md).
 */
function nameClash(call: SyncCall, error: unknown): string | undefined {
  if (!(error instanceof HttpError) || error.status !== 400 || !/\bname\b.*unique/.test(error.message))
    return undefined;
  if (call.kind !== 'create' && call.kind !== 'put' && !(call.kind === 'patch' && call.body.name))
    return undefined;
  const name = call.body.name;
  return (
    `printer name "${name}" is taken by a printer this connector does not own; ` +
    `rename this printer (printers[].name in the agent configuration) or rename or delete the other ` +
    `printer in the service; retried every sync`
  );
}

async function runCall(call: SyncCall, chain: Chain, deps: SyncExecutorDeps): Promise<void> {
  const { channel, client, connectorId, signal } = deps;
  if (call.kind === 'create') {
    chain.cloudId = (await channel.createPrinter(connectorId, call.body, signal)).id;
    return;
  }
  const id = chain.cloudId;
  if (!id) throw new Error(`${call.kind}: printer tp_id ${chain.tpId} has no cloud id`);
  switch (call.kind) {
    case 'put':
      await channel.putPrinter(connectorId, id, call.body, signal);
      return;
    case 'patch':
      await channel.patchPrinter(connectorId, id, call.body, signal);
      return;
    case 'upload':
      if (call.properties)
        await channel.uploadProperties(connectorId, id, call.properties, signal, call.capabilities);
      else if (call.capabilities) await client.uploadBlobDefaults(id, call.capabilities, signal);
      return;
    case 'upload-patch':
      await channel.patchProperties(
        connectorId,
        id,
        {
          ...(call.properties ? { properties: call.properties } : {}),
          ...(call.capabilities ? { blob_capabilities: call.capabilities } : {}),
        },
        signal,
      );
      return;
    case 'delete':
      await channel.deletePrinter(connectorId, id, signal).catch((error: unknown) => {
        if (!(error instanceof HttpError && error.status === 404)) throw error;
      });
      return;
  }
}

/** Forgets the hashes of what `call` would have uploaded, so the next run sends it again. */
function forgetHashes(record: PrinterSyncRecord, call: SyncCall): void {
  if (call.kind === 'create' || call.kind === 'upload') {
    record.propertyHashes = undefined;
    record.capabilityHashes = {};
  } else if (call.kind === 'upload-patch') {
    const properties = { ...record.propertyHashes };
    const capabilities = { ...record.capabilityHashes };
    for (const name of Object.keys(call.properties ?? {})) delete properties[name as keyof typeof properties];
    for (const name of Object.keys(call.capabilities ?? {}))
      delete capabilities[name as keyof typeof capabilities];
    record.propertyHashes = properties;
    record.capabilityHashes = capabilities;
  }
}

/** The plan's state with what did not happen undone, so the next run retries it. */
function correctedState(
  plan: SyncPlan,
  previous: SyncState,
  chains: Map<number, Chain>,
  now: number,
): SyncState {
  const printers: PrinterSyncRecord[] = plan.state.printers.map((record) => {
    const chain = chains.get(record.tpId);
    if (!chain) return record;
    const fixed: PrinterSyncRecord = { ...record, cloudId: chain.cloudId ?? record.cloudId };
    if (!chain.failed) return fixed;
    for (const call of chain.calls) if (!chain.done.has(call.kind)) forgetHashes(fixed, call);
    return fixed;
  });
  for (const chain of chains.values()) {
    const del = chain.calls.find((c) => c.kind === 'delete');
    if (!del || chain.done.has('delete')) continue;
    const old = previous.printers.find((r) => r.tpId === chain.tpId);
    printers.push({
      ...(old ?? { tpId: chain.tpId, name: '', uri: '', capabilityHashes: {} }),
      cloudId: chain.cloudId,
      firstMissingAt: old?.firstMissingAt ?? now,
    });
  }
  return { printers };
}
