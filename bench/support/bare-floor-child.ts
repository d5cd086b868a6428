/**
 * The bare floors of bench:floor: the job path in bare Node (ws, better-sqlite3, node:net, none
 * of the agent's code; the one project module loaded is src/lib/sqlite.ts, the project's one door
 * to SQLite, which only picks the better-sqlite3 line for this Node), taking the stopped agent's connector identity (its access token and
 * connector id) and its jobs at connector protocol 3: each offer with its document inline in the
 * binary frame that follows it. Two modes:
 *
 *   exactly-once  the rows and requests exactly-once needs (docs/agent-jobs.md, *Commits per
 *                 job*): a WAL database with the agent's pragmas; commit 1 the job with its
 *                 `received` event row, before the `claim` message goes; after the claim's 200,
 *                 one job at a time at the printer: commit 2 `submitting`, Create-Job, commit 3
 *                 the flush (with the printer job id) as soon as Send-Document's bytes are with
 *                 the kernel, commit 4 `submitted` with its `printing` event row on the answer,
 *                 Get-Job-Attributes on the agent's schedule until the job ends, commit 5
 *                 `completed` with its event row; the event rows go in `events` messages (the
 *                 agent's lingers) and leave with one commit per `events_result`;
 *   print-job     the cheapest: the document's size checked, one Print-Job, a `completed` event
 *                 on the answer (in batches as above); no claim message, no commits.
 * IPP over one kept-open socket (bare-ipp.ts); a busy answer is sent again after 1 ms. The
 * printer keeps every document (ippeveprinter -k) named `<job-name-prefix>-<job id>`, which the
 * bench counts.
 *
 *   bare-floor-child.ts <exactly-once|print-job> <cloud url> <agent data dir> <printer uri>
 *                       <database path> <job-name prefix>
 * Prints `ready` once the channel said hello at protocol 3; runs until SIGTERM.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { openSqlite } from '../../src/lib/sqlite.js';
import { openLedger } from './bare-ledger.js';
import {
  ATTR,
  decodeAnswer,
  encodeRequest,
  FINAL_JOB_STATES,
  IPP_BUSY,
  IPP_OK_MAX,
  type IppAnswer,
  JOB_COMPLETED,
  OPERATION,
  PrinterConnection,
} from './bare-ipp.js';

const [mode, cloudUrl, agentDir, printerUri, dbPath, prefix] = process.argv.slice(2);
if (
  (mode !== 'exactly-once' && mode !== 'print-job') ||
  !cloudUrl ||
  !agentDir ||
  !printerUri ||
  !dbPath ||
  !prefix
)
  throw new Error(
    'usage: bare-floor-child <exactly-once|print-job> <cloud url> <agent data dir> <printer uri> <database path> <job-name prefix>',
  );

/** The agent's defaults: event linger, final-event linger, longest pause between polls (ms). */
const LINGER_MS = 100;
const FINAL_LINGER_MS = 20;
const STATUS_POLL_MS = 500;
const MAX_BATCH = 100;

interface Offer {
  job_id: string;
  document: { size: number; sha256: string; content_type: string; name: string };
  user: { email: string; name: string };
}

function fail(message: string): never {
  console.error(`bare floor (${mode}): ${message}`);
  process.exit(1);
}

const identity = openSqlite(join(agentDir, 'agent.db'));
const connectorId = (
  identity.prepare("SELECT value FROM meta WHERE key = 'connector_id'").get() as { value: string }
).value;
identity.close();
const token = (JSON.parse(readFileSync(join(agentDir, 'tokens.json'), 'utf8')) as { access_token: string })
  .access_token;
const ledger = mode === 'exactly-once' ? openLedger(openSqlite(dbPath)) : undefined;
const printer = new PrinterConnection(printerUri);
let requestId = 0;

/** One IPP request (again after 1 ms while the printer answers busy); any other failure ends the child. */
async function ipp(
  operation: number,
  attributes: ReturnType<typeof ATTR.user>[],
  document?: Buffer,
  onFlushed?: () => void,
): Promise<IppAnswer> {
  for (;;) {
    requestId += 1;
    const body = encodeRequest(operation, requestId, printerUri as string, attributes);
    const answer = decodeAnswer(await printer.request(body, document, onFlushed));
    if (answer.status <= IPP_OK_MAX) return answer;
    if (answer.status !== IPP_BUSY)
      fail(`IPP operation ${operation}: status 0x${answer.status.toString(16)}`);
    await sleep(1);
  }
}

// Events: waiting ones, the one batch in flight, and the timer of the next batch.
const pending: { outboxId?: number; item: unknown }[] = [];
let inFlight: { batchId: string; outboxIds: number[] } | undefined;
let timer: NodeJS.Timeout | undefined;
let timerDue = 0;

/** A job event as the channel carries it. */
function jobEvent(seq: number, kind: string, extra: object = {}): object {
  return { event_id: randomUUID(), seq, kind, at: new Date().toISOString(), ...extra };
}

/** Queues an event (recorded in the outbox row `outboxId`, if any) for the next batch. */
function emit(jobId: string, event: object, outboxId?: number): void {
  pending.push({ outboxId, item: { job_id: jobId, event } });
  schedule(pending.some(isFinal));
}

const isFinal = (waiting: { item: unknown }) =>
  (waiting.item as { event: { kind: string } }).event.kind === 'completed';

/**
 * As the agent's sender: the next batch waits LINGER_MS for company and then FINAL_LINGER_MS; a
 * final event waiting cuts the first wait short. One batch in flight; events that came meanwhile
 * linger the same way after its answer.
 */
function schedule(urgent: boolean): void {
  const wait = (urgent ? 0 : LINGER_MS) + FINAL_LINGER_MS;
  const due = Date.now() + wait;
  if (timer && timerDue <= due) return;
  clearTimeout(timer);
  timerDue = due;
  timer = setTimeout(send, wait);
}

function send(): void {
  timer = undefined;
  if (inFlight || pending.length === 0) return;
  const batch = pending.splice(0, MAX_BATCH);
  inFlight = {
    batchId: randomUUID(),
    outboxIds: batch.flatMap((b) => (b.outboxId === undefined ? [] : [b.outboxId])),
  };
  socket.send(
    JSON.stringify({ type: 'events', batch_id: inFlight.batchId, events: batch.map((b) => b.item) }),
  );
}

function onEventsResult(message: {
  batch_id: string;
  results?: { status: number }[];
  error?: unknown;
}): void {
  if (message.batch_id !== inFlight?.batchId) fail(`an events_result for another batch: ${message.batch_id}`);
  const refused = message.error ?? message.results?.find((r) => r.status !== 204);
  if (refused) fail(`events refused: ${JSON.stringify(refused)}`);
  ledger?.acknowledge(inFlight.outboxIds);
  inFlight = undefined;
  if (pending.length > 0) schedule(pending.some(isFinal));
}

const claims = new Map<string, (status: number) => void>();
function claim(jobId: string): Promise<number> {
  const claimId = randomUUID();
  const answered = new Promise<number>((resolve) => claims.set(claimId, resolve));
  socket.send(JSON.stringify({ type: 'claim', claim_id: claimId, job_id: jobId }));
  return answered;
}

/** The end of the printer's previous job: it takes one at a time. */
let printerFree: Promise<void> = Promise.resolve();
function inTurn(run: () => Promise<void>): Promise<void> {
  const done = printerFree.then(run);
  printerFree = done.catch(() => {});
  return done;
}

const jobAttributes = (offer: Offer) => [
  ATTR.user(offer.user.email || offer.user.name || 'bench'),
  ATTR.jobName(`${prefix}-${offer.job_id}`),
];

async function exactlyOnce(offer: Offer, document: Buffer, db: NonNullable<typeof ledger>): Promise<void> {
  const digest = createHash('sha256').update(document).digest('hex');
  if (document.length !== offer.document.size || digest !== offer.document.sha256.toLowerCase())
    fail(`job ${offer.job_id}: the inline document does not match its offer`);
  const receivedEvent = jobEvent(1, 'received');
  const received = db.claimed(offer.job_id, JSON.stringify(offer), JSON.stringify(receivedEvent));
  if (received === undefined) return; // offered again: the ledger has it
  emit(offer.job_id, receivedEvent, received);
  const status = await claim(offer.job_id);
  if (status !== 200) fail(`job ${offer.job_id}: claim answered ${status}`);
  await inTurn(async () => {
    db.submitting(offer.job_id);
    const created = await ipp(OPERATION.createJob, jobAttributes(offer));
    const printerJobId = created.jobId ?? fail('Create-Job answered no job-id');
    const sent = await ipp(
      OPERATION.sendDocument,
      [
        ATTR.user('bench'),
        ATTR.jobId(printerJobId),
        ATTR.format(offer.document.content_type),
        ATTR.lastDocument(),
      ],
      document,
      () => db.flushed(offer.job_id, printerJobId),
    );
    const printingEvent = jobEvent(2, 'printing', { printer_job_id: String(printerJobId) });
    emit(offer.job_id, printingEvent, db.submitted(offer.job_id, JSON.stringify(printingEvent)));
    const ended = sent.jobState !== undefined && FINAL_JOB_STATES.has(sent.jobState);
    for (let poll = ended ? 0 : 1; ; poll++) {
      if (poll > 0) await sleep(Math.min(STATUS_POLL_MS, 5 * 2 ** (poll - 1)));
      const state = await ipp(OPERATION.getJobAttributes, [
        ATTR.jobId(printerJobId),
        ATTR.requested(['job-state', 'job-impressions-completed']),
      ]);
      if (state.jobState === JOB_COMPLETED) {
        const completed = jobEvent(3, 'completed', { pages_printed: state.impressions ?? 0 });
        emit(offer.job_id, completed, db.ended(offer.job_id, 'completed', JSON.stringify(completed)));
        return;
      }
      if (state.jobState !== undefined && FINAL_JOB_STATES.has(state.jobState))
        fail(`job ${offer.job_id} ended in job-state ${state.jobState}`);
    }
  });
}

const seen = new Set<string>();
async function printJobOnly(offer: Offer, document: Buffer): Promise<void> {
  if (seen.has(offer.job_id)) return;
  seen.add(offer.job_id);
  if (document.length !== offer.document.size) fail(`job ${offer.job_id}: the inline document's size`);
  await inTurn(async () => {
    await ipp(
      OPERATION.printJob,
      [...jobAttributes(offer), ATTR.format(offer.document.content_type)],
      document,
    );
  });
  emit(offer.job_id, jobEvent(1, 'completed'));
}

function onOffer(offer: Offer, document: Buffer): void {
  const job = ledger ? exactlyOnce(offer, document, ledger) : printJobOnly(offer, document);
  job.catch((error: unknown) => fail((error as Error).message));
}

const url = new URL('/connector/v1/channel?protocol=3', cloudUrl);
url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
const socket = new WebSocket(url, {
  headers: { authorization: `Bearer ${token}`, 'x-host-id': connectorId },
});
let inlineOffer: Offer | undefined;
socket.on('message', (data: Buffer, isBinary: boolean) => {
  if (isBinary) {
    const offer = inlineOffer ?? fail('a document frame without its offer');
    inlineOffer = undefined;
    onOffer(offer, data);
    return;
  }
  const message = JSON.parse(data.toString()) as { type: string; [key: string]: unknown };
  if (message.type === 'hello') {
    if (message.protocol !== 3) fail(`the channel speaks protocol ${message.protocol}, not 3`);
    console.log('ready');
  } else if (message.type === 'job.offer') {
    if (message.inline !== true) fail('an offer without its document inline');
    inlineOffer = message.job as Offer;
  } else if (message.type === 'ping') socket.send(JSON.stringify({ type: 'pong', t: message.t }));
  else if (message.type === 'claim_result') {
    claims.get(message.claim_id as string)?.(message.status as number);
    claims.delete(message.claim_id as string);
  } else if (message.type === 'events_result') onEventsResult(message as never);
});
socket.on('close', (code, reason) => fail(`the channel closed: ${code} ${reason}`));
process.once('SIGTERM', () => {
  socket.removeAllListeners('close');
  socket.close(1000, 'bench done');
  printer.close();
  ledger?.close();
  process.exit(0);
});
