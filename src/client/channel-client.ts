/**
 * The connector channel over REST (src/protocol/connector-channel.ts): register, printers
 * (create/PUT/PATCH/GET/DELETE with X-Host-Id), properties upload (PUT the whole, PATCH what
 * changed), long poll, claim, document download (streamed to a file, Range resume, sha256 check)
 * and job events, one at a time or in batches. The WebSocket half is channel-socket.ts. close()
 * releases the HTTP pools.
 */
import { createHash, type Hash } from 'node:crypto';
import { createReadStream, rmSync, statSync, unlinkSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { RetryableError } from '../lib/errors.js';
import { FILE_CHUNK, fileSink } from '../lib/file-sink.js';
import { PRIVATE_FILE_MODE } from '../lib/private-paths.js';
import {
  CHANNEL_PATHS,
  CLAIMING_DOWNLOAD_QUERY,
  type Connector,
  type ConnectorRegistration,
  type JobDocument,
  type JobEvent,
  type JobEventBatch,
  type JobEventBatchItem,
  type JobEventBatchResult,
  type JobEventItemResult,
  type JobOffer,
  type JobPollResponse,
  type PrinterPropertiesPatch,
  type PrinterPropertiesUpload,
} from '../protocol/connector-channel.js';
import type { BlobCapabilities } from '../protocol/blob-capabilities.js';
import type { PrinterCapabilityProperties } from '../protocol/printer-properties.js';
import { header, type HttpClient, HttpError } from './http-base.js';

/** A printer as the admin API returns it (fields the agent uses). */
export interface CloudPrinter {
  id: string;
  name: string;
  status: 'Online' | 'Offline' | 'Inproperly Configured';
  tp_id: number;
  connector_id: string;
  location?: string;
  supported_formats?: string[];
  vendor_name?: string;
  model_name?: string;
  pnp_id?: string;
}

/** Body of printer create / PUT. */
export interface CloudPrinterInput {
  name: string;
  status: 'Online' | 'Offline';
  tp_id?: number;
  connector_id?: string;
  supported_formats?: string[];
  vendor_name?: string;
  model_name?: string;
  location?: string;
  pnp_id?: string;
}

/** The job was claimed by another connector (HTTP 409). */
export function isClaimConflict(error: unknown): boolean {
  return error instanceof HttpError && error.status === 409;
}

/**
 * REST client of the connector channel; the HttpClient (and its token source) is injected. Once
 * registered, every job call (poll, claim, document, events) names the connector with X-Host-Id:
 * without it the cloud takes the connector most recently seen among those of the same user and
 * OAuth client, which is another agent's when two agents were paired by one admin.
 */
export class ChannelClient {
  private connectorId: string | undefined;

  constructor(private readonly http: HttpClient) {}

  /** The connector this client registered as (undefined before register()). */
  get registeredConnectorId(): string | undefined {
    return this.connectorId;
  }

  /** Registers (idempotent by serial_string) and returns the connector; later job calls name it. */
  async register(registration: ConnectorRegistration, signal?: AbortSignal): Promise<Connector> {
    const connector = await this.http.json<Connector>({
      method: 'POST',
      path: CHANNEL_PATHS.register,
      json: registration,
      signal,
    });
    this.connectorId = connector.id;
    return connector;
  }

  /** The X-Host-Id header of a job call, once registered. */
  private hostHeader(): Record<string, string> {
    return this.connectorId === undefined ? {} : { 'x-host-id': this.connectorId };
  }

  /** Creates a printer owned by `connectorId`. */
  createPrinter(connectorId: string, input: CloudPrinterInput, signal?: AbortSignal): Promise<CloudPrinter> {
    return this.http.json<CloudPrinter>({
      method: 'POST',
      path: '/printing/v1/printers/',
      headers: { 'x-host-id': connectorId },
      json: input,
      signal,
    });
  }

  /** Replaces a printer (name, status, connector_id required). */
  putPrinter(
    connectorId: string,
    id: string,
    input: CloudPrinterInput,
    signal?: AbortSignal,
  ): Promise<CloudPrinter> {
    return this.http.json<CloudPrinter>({
      method: 'PUT',
      path: printerPath(id),
      headers: { 'x-host-id': connectorId },
      json: { ...input, connector_id: connectorId },
      signal,
    });
  }

  /** Changes only the given fields of a printer. */
  patchPrinter(
    connectorId: string,
    id: string,
    changes: Partial<CloudPrinterInput>,
    signal?: AbortSignal,
  ): Promise<CloudPrinter> {
    return this.http.json<CloudPrinter>({
      method: 'PATCH',
      path: printerPath(id),
      headers: { 'x-host-id': connectorId },
      json: changes,
      signal,
    });
  }

  /** One printer, or undefined when the cloud does not know it. */
  async getPrinter(connectorId: string, id: string, signal?: AbortSignal): Promise<CloudPrinter | undefined> {
    try {
      return await this.http.json<CloudPrinter>({
        method: 'GET',
        path: printerPath(id),
        headers: { 'x-host-id': connectorId },
        signal,
      });
    } catch (error) {
      if (error instanceof HttpError && error.status === 404) return undefined;
      throw error;
    }
  }

  /** Deletes a printer in the cloud. */
  async deletePrinter(connectorId: string, id: string, signal?: AbortSignal): Promise<void> {
    await this.http.json<unknown>({
      method: 'DELETE',
      path: printerPath(id),
      headers: { 'x-host-id': connectorId },
      signal,
    });
  }

  /**
   * Uploads the printer's capability properties, and its blob capability defaults when given
   * (one request), as connector `connectorId` (the printer must be one of its own).
   */
  async uploadProperties(
    connectorId: string,
    printerId: string,
    properties: PrinterCapabilityProperties,
    signal?: AbortSignal,
    blobDefaults?: BlobCapabilities,
  ) {
    const body: PrinterPropertiesUpload = blobDefaults
      ? { properties, blob_capabilities: blobDefaults }
      : { properties };
    await this.http.json<unknown>({
      method: 'PUT',
      path: CHANNEL_PATHS.printerProperties(printerId),
      headers: { 'x-host-id': connectorId },
      json: body,
      signal,
    });
  }

  /**
   * Sends only what changed of a printer's properties and blob capability defaults (PATCH; the
   * cloud keeps the rest), as connector `connectorId`. The cloud must already hold a complete
   * upload of each part sent.
   */
  async patchProperties(
    connectorId: string,
    printerId: string,
    patch: PrinterPropertiesPatch,
    signal?: AbortSignal,
  ) {
    await this.http.json<unknown>({
      method: 'PATCH',
      path: CHANNEL_PATHS.printerProperties(printerId),
      headers: { 'x-host-id': connectorId },
      json: patch,
      signal,
    });
  }

  /** Long poll: waits up to `waitS` seconds for offered jobs. */
  async poll(waitS: number, signal?: AbortSignal): Promise<JobOffer[]> {
    const res = await this.http.json<JobPollResponse>({
      method: 'GET',
      path: CHANNEL_PATHS.jobs,
      query: { wait: waitS },
      headers: this.hostHeader(),
      signal,
      timeoutMs: (waitS + 30) * 1000,
    });
    return res?.jobs ?? [];
  }

  /** Claims a job; throws HttpError 409 (see isClaimConflict) when another connector holds it. */
  claim(jobId: string, signal?: AbortSignal): Promise<JobOffer> {
    return this.http.json<JobOffer>({
      method: 'POST',
      path: CHANNEL_PATHS.claim(jobId),
      headers: this.hostHeader(),
      signal,
    });
  }

  /** Posts one job event (idempotent by event_id at the cloud). */
  async postEvent(jobId: string, event: JobEvent, signal?: AbortSignal): Promise<void> {
    await this.http.json<unknown>({
      method: 'POST',
      path: CHANNEL_PATHS.events(jobId),
      headers: this.hostHeader(),
      json: event,
      signal,
    });
  }

  /**
   * Posts a batch of events (1 to MAX_EVENT_BATCH, any jobs) and returns one result per event in
   * the order sent. A failure of the whole request throws as any call does; an answer that does
   * not match the batch (count, order of event ids, shape) throws a RetryableError, so nothing is
   * taken as acknowledged on a garbled answer.
   */
  async postEvents(items: JobEventBatchItem[], signal?: AbortSignal): Promise<JobEventItemResult[]> {
    const body: JobEventBatch = { events: items };
    const answer = await this.http.json<unknown>({
      method: 'POST',
      path: CHANNEL_PATHS.eventBatch,
      headers: this.hostHeader(),
      json: body,
      signal,
    });
    return checkBatchResults(items, answer);
  }

  /**
   * Streams the document to `target`. When `target` already holds a partial download the rest
   * is requested with Range and appended. The sha256 is computed in the same pass as the write
   * (a resumed download hashes the part already on disk first); a mismatch deletes the file and
   * throws a RetryableError. With `claim` (protocol 2) the download also claims the job; a cloud
   * of protocol 1 answers 409 then, see isClaimConflict. With `keepUpTo`, a document of at most
   * that many bytes (and none of it on disk yet) is read whole into memory and hashed, and once its
   * sha256 matches its bytes are returned and no file is written (the caller keeps them, or writes
   * them with writeSpoolFile); otherwise undefined, the document being in `target`.
   */
  async download(
    jobId: string,
    document: JobDocument,
    target: string,
    signal?: AbortSignal,
    options: { claim?: boolean; keepUpTo?: number } = {},
  ): Promise<Buffer | undefined> {
    const have = fileSize(target);
    let digest: string | undefined;
    let kept: Buffer | undefined;
    if (have === 0 && options.keepUpTo !== undefined && document.size <= options.keepUpTo) {
      kept = await this.fetchSmall(jobId, document, target, signal, options.claim === true);
      digest = createHash('sha256').update(kept).digest('hex');
      if (digest === document.sha256.toLowerCase()) return kept;
    } else if (have < document.size || document.size === 0) {
      const resume = have > 0 && have < document.size;
      const res = await this.http.request({
        method: 'GET',
        path: document.url || CHANNEL_PATHS.document(jobId),
        ...(options.claim ? { query: CLAIMING_DOWNLOAD_QUERY } : {}),
        headers: { ...this.hostHeader(), ...(resume ? { range: `bytes=${have}-` } : {}) },
        signal,
      });
      const append =
        resume && res.status === 206 && header(res, 'content-range')?.startsWith(`bytes ${have}-`) === true;
      const where = `GET ${document.url || CHANNEL_PATHS.document(jobId)}`;
      const hash = createHash('sha256');
      if (append) await hashFile(target, hash);
      const sink = fileSink(target, { append, hash });
      await spoolTo(where, target, res.body, [sink], signal);
      digest = hash.digest('hex');
    }
    digest ??= await sha256File(target);
    if (digest !== document.sha256.toLowerCase()) {
      if (!kept) unlinkSync(target);
      throw new RetryableError(
        'checksum_mismatch',
        `job ${jobId}: document sha256 ${digest} != ${document.sha256}`,
      );
    }
    return undefined;
  }

  /**
   * A small document whole into memory (no resume: a cut one is fetched again whole); at most
   * `document.size` bytes are taken.
   */
  private async fetchSmall(
    jobId: string,
    document: JobDocument,
    target: string,
    signal: AbortSignal | undefined,
    claim: boolean,
  ): Promise<Buffer> {
    const path = document.url || CHANNEL_PATHS.document(jobId);
    const res = await this.http.request({
      method: 'GET',
      path,
      ...(claim ? { query: CLAIMING_DOWNLOAD_QUERY } : {}),
      headers: this.hostHeader(),
      signal,
    });
    const chunks: Buffer[] = [];
    let length = 0;
    const collect = new Writable({
      write(chunk: Buffer, _encoding, done) {
        length += chunk.length;
        if (length > document.size)
          done(
            new RetryableError(
              'size_mismatch',
              `job ${jobId}: the document has more than the announced ${document.size} bytes`,
            ),
          );
        else {
          chunks.push(chunk);
          done();
        }
      },
    });
    await spoolTo(`GET ${path}`, target, res.body, [collect], signal);
    return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, length);
  }
}

/**
 * Writes a document held in memory to its spool file in one step (private), off the event loop
 * (a synchronous write held the loop for milliseconds on a busy disk); a failed write (disk full)
 * is a RetryableError `spool_write` naming the file, as for a streamed one.
 */
export async function writeSpoolFile(target: string, bytes: Buffer): Promise<void> {
  try {
    await writeFile(target, bytes, { mode: PRIVATE_FILE_MODE });
  } catch (error) {
    rmSync(target, { force: true });
    const code = (error as { code?: string }).code ?? '';
    throw new RetryableError('spool_write', `cannot write the spool file ${target}: ${spoolProblem(code)}`, {
      cause: error,
    });
  }
}

/**
 * The results of a batch answer (`{ results }`, over REST or the channel), checked against what
 * was sent; RetryableError naming `where` when they do not fit.
 */
export function checkBatchResults(
  items: JobEventBatchItem[],
  answer: unknown,
  where = `POST ${CHANNEL_PATHS.eventBatch}`,
): JobEventItemResult[] {
  const results = (answer as Partial<JobEventBatchResult> | undefined)?.results;
  const bad = (why: string) => new RetryableError('bad_answer', `${where}: unexpected answer (${why})`);
  if (!Array.isArray(results) || results.length !== items.length) {
    throw bad(`expected ${items.length} results`);
  }
  results.forEach((result: unknown, i) => {
    const r = result as Partial<JobEventItemResult> | null;
    if (typeof r !== 'object' || r === null || !Number.isInteger(r.status)) throw bad(`results[${i}]`);
    if (r.event_id !== items[i]?.event.event_id) throw bad(`results[${i}].event_id`);
  });
  return results as JobEventItemResult[];
}

/** Hex sha256 of a file, streamed. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  await hashFile(path, hash);
  return hash.digest('hex');
}

/** Error codes of a spool write that waits for room (or rights) instead of failing the job. */
const SPOOL_WRITE_CODES = new Set([
  'ENOSPC',
  'EDQUOT',
  'EROFS',
  'EACCES',
  'EPERM',
  'EMFILE',
  'ENFILE',
  'EIO',
]);

/**
 * Pipes a download body through `stages` into the spool file. A failed write (disk full,
 * read-only) is a RetryableError `spool_write` naming the file; a body cut short by the cloud is
 * a RetryableError `network`. Both keep what was written, so the next try resumes.
 */
async function spoolTo(
  where: string,
  target: string,
  body: NodeJS.ReadableStream,
  stages: NodeJS.WritableStream[],
  signal?: AbortSignal,
): Promise<void> {
  try {
    await pipeline(body, ...(stages as [NodeJS.WritableStream]), { signal });
  } catch (error) {
    // Aborted, or refused by a stage (a document longer than announced): as it is.
    if (signal?.aborted || error instanceof RetryableError) throw error;
    const code = (error as { code?: string }).code ?? '';
    if (SPOOL_WRITE_CODES.has(code)) {
      throw new RetryableError(
        'spool_write',
        `cannot write the spool file ${target}: ${spoolProblem(code)}`,
        {
          cause: error,
        },
      );
    }
    throw new RetryableError(
      'network',
      `${where}: connection lost mid-download: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}

function spoolProblem(code: string): string {
  if (code === 'ENOSPC' || code === 'EDQUOT') return `no space left on the device (${code})`;
  if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') return `not writable (${code})`;
  return `write failed (${code})`;
}

/** Feeds a whole file into `hash`, in large reads. */
async function hashFile(path: string, hash: Hash): Promise<void> {
  for await (const chunk of createReadStream(path, { highWaterMark: FILE_CHUNK }))
    hash.update(chunk as Buffer);
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function printerPath(id: string): string {
  return `/printing/v1/printers/${encodeURIComponent(id)}/`;
}
