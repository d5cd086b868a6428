/**
 * The network between the agent and the cloud, with the connector channel calls the job path
 * makes: the claiming download (a small document into memory; else resumed with Range when the
 * spool holds part of the document, the cloud may answer the whole document instead; checked
 * against the document at the end; served again after a restart, possibly altered or gone) and
 * the event batch post. Faults: outages (connections refused), downloads cut midway, posts lost
 * on the way there (the agent times out) or on the way back (the cloud applied them), posts
 * duplicated by the network and delivered again later, after newer ones.
 */
import { HttpError } from '../../src/client/http-base.js';
import { RetryableError } from '../../src/lib/errors.js';
import type {
  JobDocument,
  JobEventBatchItem,
  JobEventItemResult,
} from '../../src/protocol/connector-channel.js';
import type { Prng } from './prng.js';
import { CHUNK_BYTES, type Scenario, within } from './scenario.js';
import type { SimCloud } from './sim-cloud.js';
import type { SimSpool, SimWorld } from './sim-world.js';

/** How long the agent's HTTP client waits for an answer that never comes. */
const ANSWER_TIMEOUT_MS = 5_000;

function network(what: string, code: string): RetryableError {
  return new RetryableError('network', `${what}: ${code}`, { cause: { code } });
}

export class SimNetwork {
  constructor(
    private readonly cloud: SimCloud,
    private readonly world: SimWorld,
    private readonly spool: SimSpool,
    private readonly rng: Prng,
    private readonly scenario: Scenario,
  ) {}

  /** True while the cloud cannot be reached. */
  down(): boolean {
    return within(this.scenario.outages, this.world.elapsed());
  }

  /** When the current outage ends (now when there is none). */
  upAgainAt(): number {
    const t = this.world.elapsed();
    const ends = this.scenario.outages.filter((w) => t >= w.at && t < w.until).map((w) => w.until);
    return this.world.now() + Math.max(0, ...ends.map((end) => end - t));
  }

  /**
   * ChannelClient.download as the agent uses it: a document of at most `keepUpTo` bytes (none of it
   * in the spool) comes whole into memory, is checked and returned, and no file is written; any
   * other is streamed into the spool (resumed with Range when it holds part). A download after the
   * job's first (a restart lost the document from memory) may serve other bytes
   * (`refetchAlteredChance`); once the cloud lost the document (`documentGoneAt`) it answers 410.
   */
  async download(
    jobId: string,
    document: JobDocument,
    target: string,
    signal?: AbortSignal,
    options: { claim?: boolean; keepUpTo?: number } = {},
  ): Promise<Buffer | undefined> {
    const have = this.spool.size(target);
    const inMemory = have === 0 && options.keepUpTo !== undefined && document.size <= options.keepUpTo;
    if (inMemory) return this.fetchWhole(jobId, document, options, signal);
    if (have < document.size || document.size === 0) {
      const served = await this.serve(jobId, document, options);
      const ranged = have > 0 && this.rng.chance(0.7);
      if (!ranged) this.spool.truncate(target);
      try {
        for (let offset = ranged ? have : 0; offset < served.length; offset += CHUNK_BYTES) {
          await this.chunkArrives(document, signal);
          this.spool.append(target, served.subarray(offset, offset + CHUNK_BYTES));
        }
      } finally {
        this.spool.closed(target);
      }
    }
    if (!this.spool.read(target)?.equals(this.cloud.job(jobId).document)) {
      this.spool.delete(target);
      throw new RetryableError('checksum_mismatch', `job ${jobId}: document sha256 mismatch`);
    }
    this.cloud.job(jobId).servedWhole = true;
    return undefined;
  }

  /** A small document whole into memory, checked as ChannelClient checks it; no spool file. */
  private async fetchWhole(
    jobId: string,
    document: JobDocument,
    options: { claim?: boolean },
    signal?: AbortSignal,
  ): Promise<Buffer> {
    const served = await this.serve(jobId, document, options);
    const chunks: Buffer[] = [];
    for (let offset = 0; offset < served.length; offset += CHUNK_BYTES) {
      await this.chunkArrives(document, signal);
      if (Math.min(offset + CHUNK_BYTES, served.length) > document.size)
        throw new RetryableError(
          'size_mismatch',
          `job ${jobId}: more than the announced ${document.size} bytes`,
        );
      chunks.push(served.subarray(offset, offset + CHUNK_BYTES));
    }
    const bytes = Buffer.concat(chunks);
    if (!bytes.equals(this.cloud.job(jobId).document))
      throw new RetryableError('checksum_mismatch', `job ${jobId}: document sha256 mismatch`);
    this.cloud.job(jobId).servedWhole = true;
    return Buffer.from(bytes);
  }

  /** The request reaches the cloud, which claims the job and answers with the bytes it serves. */
  private async serve(jobId: string, document: JobDocument, options: { claim?: boolean }): Promise<Buffer> {
    await this.reach(`GET ${document.url}`);
    const job = this.cloud.job(jobId);
    if (options.claim) this.cloud.claim(jobId);
    job.downloads++;
    const gone = job.plan.documentGoneAt;
    if (gone !== undefined && this.world.elapsed() >= gone) {
      job.goneAnswers++;
      throw new HttpError(410, `GET ${document.url}: 410 the document was deleted`);
    }
    if (job.downloads === 1) return job.document;
    if (job.servedWhole) job.refetches++;
    if (!this.rng.chance(this.scenario.refetchAlteredChance)) return job.document;
    // Another document: longer, shorter, or as long with other bytes.
    const altered = Buffer.from(job.document);
    const how = this.rng.int(0, 2);
    if (how === 0) return Buffer.concat([altered, Buffer.alloc(this.rng.int(1, CHUNK_BYTES), 7)]);
    if (how === 1 && altered.length > 1) return altered.subarray(0, this.rng.int(0, altered.length - 1));
    altered[this.rng.int(0, altered.length - 1)] = 0xfe;
    return altered;
  }

  /** One chunk of a download arrives, or the connection is cut (an outage, a cut drawn). */
  private async chunkArrives(document: JobDocument, signal?: AbortSignal): Promise<void> {
    await this.world.delay(this.rng.int(0, 3));
    if (signal?.aborted) throw signal.reason;
    if (this.down() || this.rng.chance(this.scenario.downloadCutChance)) {
      throw network(`GET ${document.url}`, 'ECONNRESET');
    }
  }

  /** ChannelClient.claim: this connector is the only one, so a claim always succeeds. */
  async claim(jobId: string): Promise<never> {
    await this.reach(`POST /jobs/${jobId}/claim`);
    this.cloud.claim(jobId);
    return this.cloud.job(jobId).offer as never;
  }

  /** ChannelClient.postEvents. */
  async postEvents(items: JobEventBatchItem[]): Promise<JobEventItemResult[]> {
    await this.reach('POST /connector/v1/events');
    if (this.rng.chance(this.scenario.eventLossChance)) {
      await this.world.delay(ANSWER_TIMEOUT_MS);
      throw network('POST /connector/v1/events', 'ETIMEDOUT');
    }
    const sent = items.map((item) => ({ job_id: item.job_id, event: { ...item.event } }));
    const results = this.cloud.applyEvents(sent);
    if (this.rng.chance(this.scenario.eventDuplicateChance)) {
      this.world.at(this.world.now() + this.rng.int(1, 3_000), () => this.cloud.applyEvents(sent));
    }
    await this.world.delay(this.latency());
    if (this.rng.chance(this.scenario.eventAnswerLossChance)) {
      throw network('POST /connector/v1/events answer', 'ECONNRESET');
    }
    return results;
  }

  /** The request travels to the cloud; refused during an outage. */
  private async reach(what: string): Promise<void> {
    await this.world.delay(this.latency());
    if (this.down()) throw network(what, 'ECONNREFUSED');
  }

  private latency(): number {
    const [min, max] = this.scenario.latency;
    return this.rng.int(min, max);
  }
}
