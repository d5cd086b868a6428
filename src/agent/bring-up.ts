/**
 * Bringing the agent's parts up in order and taking them down in reverse. bringUp(): store,
 * tokens and cloud client, connector registration, printers, outbox delivery, job loop, job feed,
 * copy-job accounting, release stations, checking the signal between phases. tearDown(): lets
 * in-flight jobs finish their Print-Job and leaves the rest resumable in the ledger; undelivered
 * events and copy-job operations stay in the outbox for the next start.
 */
import { join } from 'node:path';
import { ChannelClient } from '../client/channel-client.js';
import { HttpClient } from '../client/http-base.js';
import { TokenStore } from '../client/token-store.js';
import { throwIfAborted } from '../lib/abort.js';
import { packageVersion } from '../lib/package-version.js';
import { Redactor } from '../log/redaction.js';
import { IdentityStore } from '../store/identity-store.js';
import { JobLedger } from '../store/job-ledger.js';
import { Outbox } from '../store/outbox.js';
import type { AgentContext, StartingParts, Running } from './agent-parts.js';
import { readCloudCa, retryBackoff, tokenGrants } from './cloud-access.js';
import { jobFeed, jobLoop, startPrinterSync } from './connector-parts.js';
import { readHostFacts } from './connector/identity.js';
import { InlineDocuments } from './jobs/inline-documents.js';
import type { JobFeed } from './jobs/job-feed.js';
import { channelOrRest, OutboxSender } from './jobs/outbox-sender.js';
import { Registration } from './connector/registration.js';
import { retryUntilReachable } from './connector/startup-retry.js';
import { countedGrants, observedTokens } from './control/agent-instruments.js';
import { CopyJobs } from './copyjobs/copy-jobs.js';

/** Brings every part up into `r`; throws when the signal aborts between phases (the caller tears down). */
export async function bringUp(ctx: AgentContext, r: StartingParts, signal?: AbortSignal): Promise<Running> {
  const { config, logger, dataDir } = ctx.deps;
  ctx.caPem = readCloudCa(config);
  const ca = ctx.caPem;
  r.identity = new IdentityStore(r.db, ctx.clock);
  r.ledger = new JobLedger(r.db, ctx.clock);
  r.outbox = new Outbox(r.db, ctx.clock, retryBackoff(config));
  r.inline = new InlineDocuments(logger);
  r.tokens = new TokenStore({
    path: join(dataDir, 'tokens.json'),
    grants: countedGrants(tokenGrants(config, ca), r.control.metrics),
    clock: ctx.clock,
    logger,
  });
  const tokens = observedTokens(r.tokens, r.control);
  const contact = r.control.cloud;
  r.http = new HttpClient({
    baseUrl: config.cloud.url,
    timeoutMs: config.cloud.request_timeout_s * 1000,
    tokens,
    ...(ca ? { ca } : {}),
    onContact: (ok, problem) =>
      ok ? contact.ok(ctx.clock.now()) : contact.failed(ctx.clock.now(), problem ?? 'no answer'),
  });
  const channel = new ChannelClient(r.http);
  r.registration = new Registration({ config, channel, identity: r.identity, logger });
  throwIfAborted(signal);
  const facts = await readHostFacts();
  const registration = r.registration;
  r.connectorId = await retryUntilReachable(
    (s) => registration.registerConnector(facts, packageVersion(), s),
    {
      retry: ctx.deps.retryStartup ?? false,
      backoff: retryBackoff(config),
      notifier: ctx.notifier,
      logger,
      signal,
    },
  );
  throwIfAborted(signal);
  await startPrinterSync(ctx, r as Running, channel, signal);
  throwIfAborted(signal);
  const outbox = r.outbox;
  // Event batches go on the channel while it speaks protocol 3, else over REST.
  const post = channelOrRest(
    () => r.feed?.channelCarriesRequests ?? false,
    (items, s) => (r.feed as JobFeed).channelRequests.postEvents(items, s),
    (items, s) => channel.postEvents(items, s),
  );
  r.sender = new OutboxSender(
    outbox,
    post,
    ctx.clock,
    logger,
    undefined,
    config.jobs.event_linger_ms,
    config.jobs.final_event_linger_ms,
  );
  r.sender.start();
  r.loop = jobLoop(ctx, r as Running, channel);
  r.loop.start();
  throwIfAborted(signal);
  r.feed = jobFeed(ctx, r as Running, channel, tokens);
  r.feed.start();
  r.copies = new CopyJobs({
    config,
    db: r.db,
    outbox: r.outbox,
    clock: ctx.clock,
    logger,
    ...(ctx.deps.onCopyRecorded ? { onRecorded: ctx.deps.onCopyRecorded } : {}),
    ...(ctx.deps.redactor ? { redactor: ctx.deps.redactor } : {}),
    ...(ca ? { cloudCa: ca } : {}),
  });
  await r.copies.start();
  await startReleaseStations(ctx, r);
  return r as Running;
}

/**
 * Creates and starts the release stations once the configuration names one (at start, or at a
 * reload that adds the first): until then the agent loads none of their modules (card readers,
 * the release sessions and their UI) and `r.stations` stays undefined. Release stations never
 * fail the agent: their start() logs and retries on its own.
 */
export async function startReleaseStations(
  ctx: AgentContext,
  r: Pick<StartingParts, 'stations' | 'control' | 'copies'>,
): Promise<void> {
  const { copies } = r;
  if (r.stations || !copies || ctx.deps.config.release_stations.length === 0) return;
  const { ReleaseStations } = await import('./release/release-stations.js');
  const { config, logger, release } = ctx.deps;
  const { control } = r;
  r.stations = new ReleaseStations({
    ...release,
    onSwipe: (station, outcome) => control.swipe(station, outcome),
    configs: config.release_stations,
    copies: (station, stationLogger, ui) => copies.stationCopies(station, stationLogger, ui),
    logger: logger.child({ part: 'release' }),
    clock: ctx.clock,
    redactor: ctx.deps.redactor ?? new Redactor(),
    ...(ctx.caPem ? { cloudCa: ctx.caPem } : {}),
  });
  await r.stations.start();
}

/** Stops every part that exists, in reverse order; the database and the lock go last. */
export async function tearDown(r: StartingParts): Promise<void> {
  await r.stations?.stop();
  // Undelivered copy-job operations stay in the outbox for the next start.
  await r.copies?.stop();
  await r.feed?.stop();
  await r.loop?.stop();
  if (r.sender) {
    await r.sender.flush(AbortSignal.timeout(5000)).catch(() => 0);
    await r.sender.stop();
  }
  await r.sync?.stop();
  for (const printer of r.printers?.values() ?? []) await printer.backend.close().catch(() => {});
  await r.http?.close();
  await r.control.stop();
  r.db.close();
  await r.lock.release();
}
