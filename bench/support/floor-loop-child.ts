/**
 * The job path without durability, for bench:floor: a node process with the agent's flags that
 * takes the stopped agent's identity (its data directory: connector serial, tokens) and prints the
 * offered jobs with the agent's own parts, but keeps nothing: no SQLite ledger, no outbox, no
 * spool file. It speaks connector protocol 3 as the agent does. Per offer: the `received` and
 * `downloading` events; a document that came inline after its offer (size and SHA-256 checked)
 * is claimed with a `claim` message on the channel and taken from memory on a 200, any other
 * document (or answer) comes by the claiming download into memory through the agent's
 * HttpClient (SHA-256 checked); then at the printer, one job at a time as the agent does with a
 * printer that takes one job at a time, the agent's IppBackend.submit (Create-Job +
 * Send-Document), `printing`, Get-Job-Attributes polled on the agent's schedule until the job
 * ends, `completed`. Events go in batches as the agent's sender sends them (one batch in flight,
 * the config's `jobs.event_linger_ms` and then `jobs.final_event_linger_ms`, only the second
 * when a final event waits): on the channel (`events`) while it speaks 3,
 * otherwise through ChannelClient.postEvents over REST.
 *
 *   floor-loop-child.ts <agent config> <agent data dir> <printer uri>
 * Prints `ready` once registered and listening; runs until killed.
 */
import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { ChannelClient } from '../../src/client/channel-client.js';
import { HttpClient } from '../../src/client/http-base.js';
import { TokenStore } from '../../src/client/token-store.js';
import { retryBackoff, tokenGrants } from '../../src/agent/cloud-access.js';
import { readHostFacts } from '../../src/agent/connector/identity.js';
import { Registration } from '../../src/agent/connector/registration.js';
import { JobFeed } from '../../src/agent/jobs/job-feed.js';
import { loadAgentConfig } from '../../src/config/load-config.js';
import { sleep } from '../../src/lib/abort.js';
import { systemClock } from '../../src/lib/clock.js';
import { packageVersion } from '../../src/lib/package-version.js';
import { silentLogger } from '../../src/log/logger.js';
import { IppBackend } from '../../src/printing/ipp/ipp-backend.js';
import { isFinalJobState } from '../../src/printing/printer-backend.js';
import {
  CHANNEL_PATHS,
  CLAIMING_DOWNLOAD_QUERY,
  FINAL_EVENT_KINDS,
  type JobEventBatchItem,
  type JobEventKind,
  type JobOffer,
  MAX_EVENT_BATCH,
} from '../../src/protocol/connector-channel.js';
import { openAgentDatabase } from '../../src/store/agent-db.js';
import { IdentityStore } from '../../src/store/identity-store.js';

const [configPath, dataDir, printerUri] = process.argv.slice(2);
if (!configPath || !dataDir || !printerUri)
  throw new Error('usage: floor-loop-child <agent config> <agent data dir> <printer uri>');

const config = loadAgentConfig(configPath);
const logger = silentLogger();
const tokens = new TokenStore({
  path: join(dataDir, 'tokens.json'),
  grants: tokenGrants(config, undefined),
  clock: systemClock,
  logger,
});
const http = new HttpClient({
  baseUrl: config.cloud.url,
  timeoutMs: config.cloud.request_timeout_s * 1000,
  tokens,
});
const channel = new ChannelClient(http);
// The agent's identity, read once at start; nothing is written during the jobs.
const db = openAgentDatabase(join(dataDir, 'agent.db'));
await new Registration({
  config,
  channel,
  identity: new IdentityStore(db, systemClock),
  logger,
}).registerConnector(await readHostFacts(), packageVersion());
db.close();
/** The agent's OutboxSender lingers as long for more events before a batch without a final one. */
const LINGER_MS = config.jobs.event_linger_ms ?? 100;
/** The agent's sender waits as long after the linger, and after a final event only this. */
const FINAL_LINGER_MS = config.jobs.final_event_linger_ms ?? 20;
const backend = new IppBackend(printerUri, { logger });
await backend.describe();

/** Events waiting for the next batch, and the per-job sequence numbers. */
const pending: JobEventBatchItem[] = [];
const seqs = new Map<string, number>();
let sending = false;
let urgent = false;
let lingering: NodeJS.Timeout | undefined;
let lingeringDue = 0;

function emit(jobId: string, kind: JobEventKind, extra: Record<string, unknown> = {}): void {
  const seq = (seqs.get(jobId) ?? 0) + 1;
  seqs.set(jobId, seq);
  pending.push({
    job_id: jobId,
    event: { event_id: randomUUID(), seq, kind, at: new Date().toISOString(), ...extra },
  });
  if (FINAL_EVENT_KINDS.has(kind)) {
    seqs.delete(jobId);
    urgent = true;
  }
  schedule();
}

/**
 * As the agent's sender: a batch waits `jobs.event_linger_ms` for company and then
 * `jobs.final_event_linger_ms`; a final event cuts the first wait short (so it waits only the
 * second). One batch in flight; events that came meanwhile linger the same way after its answer.
 */
function schedule(): void {
  if (sending) return;
  const wait = (urgent ? 0 : LINGER_MS) + FINAL_LINGER_MS;
  const due = Date.now() + wait;
  if (lingering && lingeringDue <= due) return;
  clearTimeout(lingering);
  lingeringDue = due;
  lingering = setTimeout(() => void send(), wait);
}

/** One batch of everything pending (up to MAX_EVENT_BATCH), then the next round is scheduled. */
async function send(): Promise<void> {
  clearTimeout(lingering);
  lingering = undefined;
  sending = true;
  urgent = false;
  try {
    const items = pending.splice(0, MAX_EVENT_BATCH);
    const results = feed.channelCarriesRequests
      ? await feed.channelRequests.postEvents(items)
      : await channel.postEvents(items);
    const refused = results.find((r) => r.status !== 204);
    if (refused) throw new Error(`event refused: ${JSON.stringify(refused)}`);
  } catch (error) {
    console.error(`floor loop: ${(error as Error).message}`);
    process.exit(1);
  }
  sending = false;
  if (pending.length > 0) schedule();
}

/** SHA-256 of the bytes matches the offer's (and the size). */
function matches(offer: JobOffer, bytes: Buffer): boolean {
  const digest = createHash('sha256').update(bytes).digest('hex');
  return bytes.length === offer.document.size && digest === offer.document.sha256.toLowerCase();
}

/**
 * The document: an inline one (checked) once the channel's claim answers 200, as the agent's
 * download step takes it; otherwise the claiming download.
 */
async function documentOf(offer: JobOffer, inline: Buffer | undefined): Promise<Buffer> {
  if (inline && matches(offer, inline) && feed.channelCarriesRequests) {
    const answer = await feed.channelRequests.claim(offer.job_id).catch(() => undefined);
    if (answer?.status === 200) return inline;
    if (answer?.status === 409) throw new Error(`job ${offer.job_id}: claim refused`);
  }
  return download(offer);
}

/** The claiming download, whole into memory, its SHA-256 checked. */
async function download(offer: JobOffer): Promise<Buffer> {
  const res = await http.request({
    method: 'GET',
    path: offer.document.url || CHANNEL_PATHS.document(offer.job_id),
    query: CLAIMING_DOWNLOAD_QUERY,
    headers: { 'x-host-id': channel.registeredConnectorId as string },
  });
  const bytes = Buffer.from(await res.body.arrayBuffer());
  if (!matches(offer, bytes)) throw new Error(`job ${offer.job_id}: sha256 mismatch`);
  return bytes;
}

/** Submits and watches one job at the printer (the agent's poll schedule). */
async function print(offer: JobOffer, bytes: Buffer): Promise<void> {
  const submitted = await backend.submit({
    documentPath: '',
    documentBytes: bytes,
    documentFormat: offer.document.content_type,
    jobName: `printrelay-${offer.job_id}`,
    documentName: offer.document.name,
    userName: offer.user.email || offer.user.name || 'printrelay',
    ticket: offer.ticket,
  });
  emit(offer.job_id, 'printing', { printer_job_id: submitted.printerJobId });
  const notFinished = submitted.state !== undefined && !isFinalJobState(submitted.state);
  for (let poll = notFinished ? 1 : 0; ; poll++) {
    if (poll > 0) await sleep(Math.min(config.jobs.status_poll_ms, 5 * 2 ** (poll - 1)));
    const state = await backend.jobState(submitted.printerJobId);
    if (state.state === 'completed') {
      emit(offer.job_id, 'completed', { pages_printed: state.pagesCompleted, pages_total: state.pagesTotal });
      return;
    }
    if (isFinalJobState(state.state)) throw new Error(`job ${offer.job_id} ended ${state.state}`);
  }
}

const seen = new Set<string>();
/** The end of the printer's previous job: the next one is sent after it. */
let printerFree: Promise<void> = Promise.resolve();

function onOffer(offer: JobOffer, inline?: Buffer): boolean {
  if (seen.has(offer.job_id)) return false;
  seen.add(offer.job_id);
  emit(offer.job_id, 'received');
  const job = (async () => {
    emit(offer.job_id, 'downloading');
    const bytes = await documentOf(offer, inline);
    const previous = printerFree;
    const done = previous.then(() => print(offer, bytes));
    printerFree = done.catch(() => {});
    await done;
  })();
  job.catch((error: unknown) => {
    console.error(`floor loop: ${(error as Error).message}`);
    process.exit(1);
  });
  return true;
}

const feed = new JobFeed({
  mode: config.cloud.channel,
  baseUrl: config.cloud.url,
  channel,
  tokens,
  pollWaitS: config.cloud.poll_interval_s,
  backoff: retryBackoff(config),
  logger,
  onOffer,
  onCancel: () => {},
});
feed.start();
process.once('SIGTERM', () => {
  void feed.stop().then(() => process.exit(0));
});
console.log('ready');
