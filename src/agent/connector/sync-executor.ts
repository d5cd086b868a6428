/**
 * Runs the calls of a printer sync plan against the cloud. Calls about one printer run in the
 * plan's order (create, put, patch, properties, capabilities, delete); different printers run
 * side by side (bounded). The capability calls of one printer become ONE upload of its five
 * default blob capabilities. A failing call stops only that printer's remaining calls, and its
 * record is corrected so the next run retries exactly what did not happen: a hash is kept only
 * for an upload that succeeded, a failed delete keeps the record. Holds nothing.
 */
import type { ChannelClient } from '../../client/channel-client.js';
import { HttpError } from '../../client/http-base.js';
import { errorMessage } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type { BlobCapabilities } from '../../printing/translate/capabilities/blob-capabilities.js';
import type { PrinterSyncClient } from './printer-sync-client.js';
import type { PrinterSyncRecord, SyncCall, SyncPlan, SyncState } from './sync-plan.js';

/** What the executor calls and reads; all owned by the caller. */
export interface SyncExecutorDeps {
  connectorId: string;
  channel: ChannelClient;
  client: PrinterSyncClient;
  /** The full blob capability defaults of a printer this run, by tp_id. */
  capabilitiesOf: (tpId: number) => BlobCapabilities | undefined;
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
  /** Write requests sent, by kind (capability uploads counted once per printer). */
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
    .filter(
      (c) => c.cloudId && (c.done.has('create') || c.done.has('capability') || c.done.has('properties')),
    )
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
    if (chain.done.has(call.kind) && call.kind === 'capability') continue;
    try {
      await runCall(call, chain, deps);
      chain.done.add(call.kind);
      writes[call.kind] = (writes[call.kind] ?? 0) + 1;
    } catch (error) {
      if (deps.signal?.aborted) throw error;
      chain.failed = { tpId: chain.tpId, kind: call.kind, error: errorMessage(error) };
      log.warn({ call: call.kind, error: chain.failed.error }, 'printer sync call failed; retried next run');
      return;
    }
  }
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
    case 'properties': {
      // A capability upload of the same printer rides along: one request for one change.
      const defaults = chain.calls.some((c) => c.kind === 'capability')
        ? deps.capabilitiesOf(chain.tpId)
        : undefined;
      await channel.uploadProperties(id, call.properties, signal, defaults);
      if (defaults) chain.done.add('capability');
      return;
    }
    case 'capability': {
      const defaults = deps.capabilitiesOf(chain.tpId);
      if (!defaults) throw new Error(`capabilities of printer tp_id ${chain.tpId} are unknown this run`);
      await client.uploadBlobDefaults(id, defaults, signal);
      return;
    }
    case 'delete':
      await channel.deletePrinter(connectorId, id, signal).catch((error: unknown) => {
        if (!(error instanceof HttpError && error.status === 404)) throw error;
      });
      return;
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
    const pending = (kind: SyncCall['kind']) =>
      chain.calls.some((c) => c.kind === kind) && !chain.done.has(kind);
    if (pending('properties') || pending('create')) fixed.propertiesHash = undefined;
    if (pending('capability') || pending('create')) fixed.capabilityHashes = {};
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
