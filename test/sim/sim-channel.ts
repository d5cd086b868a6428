/**
 * The channel WebSocket of connector protocol 3 (and 4, when the scenario draws it: a claim
 * carries the job's first events, applied with it) between the agent and the simulated cloud: the
 * agent's real ChannelRequests over a simulated socket. Offers carry their document inline (when
 * the channel is up and the document small), its frame sometimes lost or corrupted; claims and
 * event batches travel to the cloud and their answers back, each after the network's latency.
 * Faults: the channel is cut while a message travels either way (before the cloud applied it, or
 * after, with the answer lost), every request waiting then fails and the channel stays down for a
 * reconnect (the agent goes by REST meanwhile); event batches are sometimes applied a second time
 * later (a replay after newer ones); an outage takes the channel down too.
 */
import { ChannelRequests } from '../../src/client/channel-requests.js';
import type {
  AgentMessage,
  JobEventBatchItem,
  JobEventItemResult,
  ServerMessage,
} from '../../src/protocol/connector-channel.js';
import type { Prng } from './prng.js';
import type { Scenario } from './scenario.js';
import type { SimCloud } from './sim-cloud.js';
import type { SimNetwork } from './sim-network.js';
import type { SimWorld } from './sim-world.js';

/** What the channel carried in a run (the simulation's summary counts them). */
export interface ChannelCounts {
  inlineOffers: number;
  inlineLost: number;
  inlineCorrupted: number;
  claims: number;
  /** Events that rode on claims (protocol 4). */
  claimEvents: number;
  batches: number;
  cuts: number;
}

/** Every channel count at zero: one seed's start, or a run's sum before its first seed. */
export function noChannelCounts(): ChannelCounts {
  return {
    inlineOffers: 0,
    inlineLost: 0,
    inlineCorrupted: 0,
    claims: 0,
    claimEvents: 0,
    batches: 0,
    cuts: 0,
  };
}

export class SimChannel {
  readonly counts: ChannelCounts = noChannelCounts();
  private requests: ChannelRequests | undefined;
  /** The channel is down (reconnecting) until this virtual time. */
  private downUntil = 0;
  /** Bumped at every cut: what travelled on an older socket is gone with it. */
  private socket = 0;

  constructor(
    private readonly cloud: SimCloud,
    private readonly network: SimNetwork,
    private readonly world: SimWorld,
    private readonly rng: Prng,
    private readonly scenario: Scenario,
  ) {}

  /** A new life of the agent connects: its requests go on this channel. */
  attach(): ChannelRequests {
    this.requests = new ChannelRequests({ send: (message) => this.send(message) });
    return this.requests;
  }

  /** True while the channel is open and speaks protocol 3. */
  up(): boolean {
    return this.scenario.channelProtocol3 && !this.network.down() && this.world.now() >= this.downUntil;
  }

  /** True while the channel is open and speaks protocol 4: claims carry the job's first events. */
  carriesClaimEvents(): boolean {
    return this.up() && this.scenario.channelProtocol4;
  }

  /**
   * The document frame that follows an offer of `jobId` now: none when the channel is down or the
   * document too large; sometimes lost (undefined) or with other bytes.
   */
  inlineDocument(jobId: string): Buffer | undefined {
    const job = this.cloud.job(jobId);
    if (!this.up() || job.document.length > this.scenario.inlineDocumentBytes) return undefined;
    this.counts.inlineOffers++;
    if (this.rng.chance(this.scenario.inlineLostChance)) {
      this.counts.inlineLost++;
      return undefined;
    }
    job.downloads++;
    if (!this.rng.chance(this.scenario.inlineCorruptChance)) {
      job.servedWhole = true;
      return Buffer.from(job.document);
    }
    this.counts.inlineCorrupted++;
    const corrupted = Buffer.from(job.document);
    const at = this.rng.int(0, corrupted.length - 1);
    corrupted[at] = (corrupted[at] ?? 0) ^ 0x5a;
    return corrupted;
  }

  private send(message: AgentMessage): boolean {
    if (!this.up() || !this.requests) return false;
    const requests = this.requests;
    void this.travel(message, requests);
    return true;
  }

  /** The message reaches the cloud, which applies it; the answer comes back, unless the channel is cut. */
  private async travel(message: AgentMessage, requests: ChannelRequests): Promise<void> {
    const socket = this.socket;
    await this.world.delay(this.latency());
    if (socket !== this.socket) return;
    if (this.cutNow()) return this.cut(requests);
    const answer = this.apply(message);
    await this.world.delay(this.latency());
    if (socket !== this.socket) return;
    if (this.cutNow()) return this.cut(requests);
    if (answer) requests.answer(answer);
  }

  private apply(message: AgentMessage): ServerMessage | undefined {
    if (message.type === 'claim') {
      this.counts.claims++;
      this.cloud.claim(message.job_id);
      const answer = {
        type: 'claim_result',
        claim_id: message.claim_id,
        job_id: message.job_id,
        status: 200,
      };
      // Protocol 4: the claim's events are applied with it (a cut after this loses only the answer).
      if (!message.events || !this.scenario.channelProtocol4) return answer as ServerMessage;
      this.counts.claimEvents += message.events.length;
      const sent = message.events.map((event) => ({ job_id: message.job_id, event: { ...event } }));
      return { ...answer, events: this.applyEvents(sent) } as ServerMessage;
    }
    if (message.type !== 'events') return undefined;
    this.counts.batches++;
    const sent = message.events.map((item) => ({ job_id: item.job_id, event: { ...item.event } }));
    return { type: 'events_result', batch_id: message.batch_id, results: this.applyEvents(sent) };
  }

  /** Applies events at the cloud, sometimes a second time later (a replay after newer ones). */
  private applyEvents(sent: JobEventBatchItem[]): JobEventItemResult[] {
    const results = this.cloud.applyEvents(sent);
    if (this.rng.chance(this.scenario.eventDuplicateChance))
      this.world.at(this.world.now() + this.rng.int(1, 3_000), () => this.cloud.applyEvents(sent));
    return results;
  }

  /** A cut: drawn, or the cloud became unreachable (an outage, a reconnect under way). */
  private cutNow(): boolean {
    return !this.up() || this.rng.chance(this.scenario.channelCutChance);
  }

  /** The socket closes: what waits for an answer fails; the agent reconnects after a while. */
  private cut(requests: ChannelRequests): void {
    this.counts.cuts++;
    this.socket++;
    this.downUntil = Math.max(this.downUntil, this.world.now() + this.rng.int(10, 3_000));
    requests.closed();
  }

  private latency(): number {
    const [min, max] = this.scenario.latency;
    return this.rng.int(min, max);
  }
}
