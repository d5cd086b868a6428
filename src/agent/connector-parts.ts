/**
 * The agent's connector parts, built over the running parts: the printer sync (its first run
 * registers the printers), the job loop with its runner (download, submit, events into the
 * outbox), the job feed (channel or polling) and re-registration when the cloud forgot the
 * connector.
 */
import { join } from 'node:path';
import type { ChannelClient } from '../client/channel-client.js';
import type { TokenSource } from '../client/http-base.js';
import { errorMessage } from '../lib/errors.js';
import { packageVersion } from '../lib/package-version.js';
import { defaultBackendRegistry } from '../printing/backend-registry.js';
import { FINAL_EVENT_KINDS } from '../protocol/connector-channel.js';
import type { LedgerJob } from '../store/job-ledger.js';
import type { NewJobEvent } from '../store/outbox.js';
import { SyncStateStore } from '../store/sync-state-store.js';
import type { AgentContext, Running } from './agent-parts.js';
import { retryBackoff } from './cloud-access.js';
import { claimingDownload } from './jobs/claiming-download.js';
import { claimWithEvents } from './jobs/claim-events.js';
import { inlineOrFetch, offerWithDocument } from './jobs/inline-documents.js';
import { checkDocument } from './jobs/document-check.js';
import { SMALL_DOCUMENT_BYTES } from './jobs/held-documents.js';
import { readHostFacts } from './connector/identity.js';
import { JobFeed } from './jobs/job-feed.js';
import { JobLoop } from './jobs/job-loop.js';
import { JobRunner } from './jobs/job-runner.js';
import { PrinterSync } from './printer-sync/printer-sync.js';
import { PrinterSyncClient } from './printer-sync/printer-sync-client.js';
import { syncDiscoverers } from './printer-sync/printer-sync-discovery.js';
import type { PrinterSyncRecord } from './printer-sync/sync-types.js';
import { TicketOverrides } from './jobs/ticket-overrides.js';
import { jobEventWatcher, syncRunWatcher } from './control/agent-instruments.js';

/** The printer sync: its first run registers the printers (configured and discovered). */
export async function startPrinterSync(
  ctx: AgentContext,
  r: Running,
  channel: ChannelClient,
  signal?: AbortSignal,
): Promise<void> {
  const { config, logger, dataDir } = ctx.deps;
  const client = new PrinterSyncClient(r.http);
  r.overrides = new TicketOverrides({ client, clock: ctx.clock, logger });
  r.sync = new PrinterSync({
    config,
    connectorId: () => r.connectorId,
    channel,
    client,
    store: new SyncStateStore<PrinterSyncRecord>(r.db, ctx.clock),
    registry: ctx.deps.backends ?? defaultBackendRegistry(),
    discoverers: syncDiscoverers(config.discovery, logger.child({ part: 'discovery' })),
    dataDir,
    clock: ctx.clock,
    logger: logger.child({ part: 'printer-sync' }),
    onPrinters: (list) => {
      r.printers.clear();
      for (const p of list) r.printers.set(p.config.name, p);
    },
    onCapabilitiesChanged: (ids) => r.overrides?.invalidate(ids),
    onRun: syncRunWatcher(r.control),
  });
  await r.sync.start(signal);
}

/** The job loop: every job event goes to the outbox (final ones urgently) and the control view. */
export function jobLoop(ctx: AgentContext, r: Running, channel: ChannelClient): JobLoop {
  const { logger, config, dataDir } = ctx.deps;
  const watch = jobEventWatcher({
    ledger: r.ledger,
    control: r.control,
    printerName: (cloudId) =>
      [...r.printers.values()].find((p) => p.cloudId === cloudId)?.config.name ?? cloudId,
    clock: ctx.clock,
  });
  const emit = (jobId: string, event: NewJobEvent, job?: LedgerJob) => {
    watch(jobId, event, job);
    r.outbox.add(jobId, event);
    r.sender.notify({ urgent: FINAL_EVENT_KINDS.has(event.kind) });
  };
  // A small document that came inline with its offer (protocol 3) is claimed on the channel and
  // held in memory as a downloaded one; otherwise, or when that does not settle it, the claiming
  // download. On protocol 4 the claim carries the job's first events (claim-events.ts).
  const claim = claimWithEvents(
    {
      takeForClaim: (jobId) => r.sender.takeForClaim(jobId),
      settleClaim: (jobId, pending, results) => r.sender.settleClaim(jobId, pending, results),
    },
    () => r.feed?.channelCarriesClaimEvents ?? false,
    (jobId, s, events) => (r.feed as JobFeed).channelRequests.claim(jobId, s, events),
  );
  const fetch = inlineOrFetch(
    r.inline,
    { available: () => r.feed?.channelCarriesRequests ?? false, claim },
    (offer, target, s) => claimingDownload(channel, offer, target, s, SMALL_DOCUMENT_BYTES),
    logger,
  );
  const runner = new JobRunner({
    ledger: r.ledger,
    emit,
    download: async (offer, target, s) => {
      const bytes = await fetch(offer, target, s);
      r.control.metrics.downloaded(offer.document.size);
      await checkDocument(offer, target, bytes, s);
      return bytes;
    },
    discardEvents: (jobId) => r.outbox.discardJob(jobId),
    inline: r.inline,
    adjustTicket: (printerId, ticket) =>
      r.overrides ? r.overrides.apply(printerId, ticket) : Promise.resolve({ ticket, warnings: [] }),
    jobs: config.jobs,
    spoolDir: join(dataDir, 'spool'),
    clock: ctx.clock,
    logger,
  });
  const byCloudId = () => new Map([...r.printers.values()].map((p) => [p.cloudId, p.backend]));
  return new JobLoop({
    ledger: r.ledger,
    runner,
    emit,
    backendFor: (printerId) => byCloudId().get(printerId),
    spoolDir: join(dataDir, 'spool'),
    logger,
    notifier: ctx.notifier,
  });
}

/** The job feed: offers go to the loop, cancels too; an unknown connector registers again. */
export function jobFeed(ctx: AgentContext, r: Running, channel: ChannelClient, tokens: TokenSource): JobFeed {
  const { config, logger } = ctx.deps;
  return new JobFeed({
    mode: config.cloud.channel,
    baseUrl: config.cloud.url,
    channel,
    tokens,
    pollWaitS: config.cloud.poll_interval_s,
    backoff: retryBackoff(config),
    logger,
    onOffer: (offer, inline) =>
      offerWithDocument((o, held) => r.loop?.offer(o, held) ?? false, r.inline, offer, inline),
    // Poll answers repeat pending jobs until their `received` (which claims them) arrives.
    onPolledOffers: () => r.sender.notify({ urgent: true }),
    onCancel: (jobId) => r.loop?.cancel(jobId),
    onUnknownConnector: () => void reRegister(ctx, r),
    ...(ctx.caPem ? { ca: ctx.caPem } : {}),
    ...(ctx.deps.channelProtocol === undefined ? {} : { protocol: ctx.deps.channelProtocol }),
  });
}

/** The cloud no longer knows the connector: forget its cloud ids, register, sync the printers. */
async function reRegister(ctx: AgentContext, r: Running): Promise<void> {
  ctx.deps.logger.warn('the cloud no longer knows this connector; registering again');
  r.identity.forgetCloudIds();
  try {
    r.connectorId = await r.registration.registerConnector(await readHostFacts(), packageVersion());
    new SyncStateStore<PrinterSyncRecord>(r.db, ctx.clock).forgetCloudIds();
    await r.sync?.runNow(undefined, true);
  } catch (error) {
    ctx.deps.logger.error({ error: errorMessage(error) }, 're-registration failed');
  }
}
