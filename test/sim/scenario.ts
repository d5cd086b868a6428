/**
 * What one seed decides before the run starts: the printers (whether they know Create-Job, how
 * many jobs they hold before answering busy, what a cut connection does to a job, when they
 * restart or stall), the jobs (printer, size, arrival), the cloud's outages and the rates of the
 * faults drawn during the run (crashes, lost / duplicated / delayed event posts, lost answers,
 * cut downloads and transfers, documents the cloud loses or serves altered when fetched again,
 * and which documents the agent keeps in memory only).
 */
import { HELD_DOCUMENTS_BYTES, SMALL_DOCUMENT_BYTES } from '../../src/agent/jobs/held-documents.js';
import type { Prng } from './prng.js';

/** Switches that change the system under test, for proving the simulator finds known defects. */
export interface SimVariant {
  /**
   * When the printer backend reports the document flushed and sent. `contract`, as the IPP
   * backend does (printer-backend.ts): flushed once the last bytes are with the operating system
   * (a crash of the agent still delivers them, a cut connection does not), sent only after the
   * printer answered the request carrying the document with success (an answer lost: never
   * sent). `handed`, deliberately broken: flushed and sent as the last bytes are handed over,
   * before they leave the process (a crash loses them too) and before any answer.
   */
  sentRule: 'contract' | 'handed';
  /**
   * Printers report how much of an ended job's document they processed (job-k-octets), as most
   * do; false: printers that cannot tell (ippeveprinter reports neither).
   */
  kOctets: boolean;
  /** Draw printers without Create-Job too (only Print-Job: the printer names the job in its answer). */
  printJobOnlyPrinters: boolean;
  /**
   * Printers abort a job that waits for its document longer than their operation timeout (IPP
   * multiple-operation-time-out). Without it an empty job the agent leaves behind holds the
   * printer for ever.
   */
  operationTimeout: boolean;
  /**
   * `confirmed`: an inline document goes to the job only after the cloud answered its claim with
   * 200 (the agent's rule). `assumed` (the variant `inline-unclaimed`, broken on purpose): the
   * claim is taken as answered without being sent, so a job may reach its printer before the
   * cloud heard of the claim (the invariant `printed-unclaimed`). `first` (the variant
   * `claim-first`, broken on purpose): an offer with its document is claimed on the channel before
   * the ledger records it (the invariant `claim-unrecorded`).
   */
  claimRule: 'confirmed' | 'assumed' | 'first';
  /**
   * Protocol 4, a claim carrying the job's first events: `kept-off` (the agent's rule) leaves the
   * job out of every batch while its claim is out, and a job in a batch in flight out of the
   * claim. `shared` (the variant `claim-events-shared`, broken on purpose): the sender is not kept
   * off a claimed job, so one job's events may be in two requests at once (the invariant
   * `events-in-two-requests`).
   */
  claimEvents: 'kept-off' | 'shared';
  /**
   * `leave`: a job whose document could not be fetched again leaves its printer's line while it
   * waits for its next try (the agent's rule). `hold` (the variant `line-held`, broken on purpose):
   * it keeps its turn at the head of the line and tries again there, so the printer's later jobs
   * wait behind it (the invariant `line-held`, sim-line.ts).
   */
  lineRule: 'leave' | 'hold';
  /**
   * `kept`: a job waiting for its document keeps its wait across a restart (its ledger row records
   * the next try; the agent's rule). `forgotten` (the variant `wait-forgotten`, broken on purpose):
   * a restarted agent fetches such a job's document at once, as the agent did when the wait was
   * kept in memory (the invariant `refetch-early`, sim-line.ts).
   */
  waitRule: 'kept' | 'forgotten';
}

export const DEFAULT_VARIANT: SimVariant = {
  sentRule: 'contract',
  kOctets: true,
  printJobOnlyPrinters: false,
  operationTimeout: true,
  claimRule: 'confirmed',
  claimEvents: 'kept-off',
  lineRule: 'leave',
  waitRule: 'kept',
};

/** What a printer does with a job whose connection broke before the document ended. */
export type CutPolicy = 'complete' | 'abort' | 'wait';

export interface Window {
  at: number;
  until: number;
}

export interface PrinterPlan {
  id: string;
  createJob: boolean;
  /** Reports job-k-octets for an ended job (false: cannot tell how much of a document it had). */
  reportsKOctets: boolean;
  /** Unfinished jobs the printer holds before it answers busy. */
  capacity: number;
  onCut: CutPolicy;
  /** How long a job may wait for its document before the printer aborts it (none: for ever). */
  operationTimeoutMs: number | undefined;
  /** Processing time per document byte. */
  msPerByte: number;
  restarts: (Window & { forget: boolean })[];
  stalls: Window[];
  /** Chance that a document transfer breaks at a given chunk. */
  cutChance: number;
  /** Chance that the printer's answer to a request is lost (the request did arrive). */
  answerLossChance: number;
}

export interface JobPlan {
  jobId: string;
  printerId: string;
  size: number;
  arriveAt: number;
  /** When the cloud loses the document (deleted, the job cancelled there): every later download answers 410. */
  documentGoneAt: number | undefined;
}

export interface Scenario {
  seed: number;
  variant: SimVariant;
  printers: PrinterPlan[];
  jobs: JobPlan[];
  outages: Window[];
  /** Chance per scheduler step that the agent crashes there (at most `maxCrashes`). */
  crashChance: number;
  maxCrashes: number;
  /** Chance that a torn crash also cuts the last write of a spool file being written. */
  tornWriteChance: number;
  eventLossChance: number;
  eventAnswerLossChance: number;
  eventDuplicateChance: number;
  offerDuplicateChance: number;
  downloadCutChance: number;
  /**
   * Chance that a download of a job's document after its first one (a restart lost the document
   * from memory) serves other bytes: a different byte count, or the same count with other content.
   */
  refetchAlteredChance: number;
  /** Documents of at most this many bytes are fetched into memory with no spool file (keepUpTo). */
  smallDocumentBytes: number;
  /** The most the agent holds in memory of such documents together (HeldDocuments' limit). */
  heldDocumentsBytes: number;
  /** One-way network latency range in ms. */
  latency: [number, number];
  /** After this virtual time no new fault starts; the run drains. */
  faultHorizonMs: number;
  /** Protocol 3 on the channel (inline documents, claims and events on it); false: protocol 2, REST only. */
  channelProtocol3: boolean;
  /** Documents of at most this many bytes come inline with their offer (0: none). */
  inlineDocumentBytes: number;
  /** Chance that an inline offer's document frame is lost (the offer arrives without it). */
  inlineLostChance: number;
  /** Chance that an inline document arrives with other bytes than its offer's sha256 says. */
  inlineCorruptChance: number;
  /** Chance that the channel is cut while a claim or batch travels, either way (outcome unknown). */
  channelCutChance: number;
  /** Protocol 4 on a protocol-3 channel: claims carry the job's first events. */
  channelProtocol4: boolean;
}

/**
 * The variant SIM_VARIANT names (comma-separated): `handed` (sentRule), `no-k-octets` (kOctets
 * false), `print-job-only` (printJobOnlyPrinters), `no-operation-timeout`, `inline-unclaimed` (claimRule assumed), `claim-first` (claimRule first), `line-held`
 * (lineRule hold), `claim-events-shared` (claimEvents shared), `wait-forgotten` (waitRule
 * forgotten); unset, the default.
 */
export function variantFromEnv(value: string | undefined): SimVariant {
  const names = new Set((value ?? '').split(',').filter((n) => n !== ''));
  const known = [
    'handed',
    'no-k-octets',
    'print-job-only',
    'no-operation-timeout',
    'inline-unclaimed',
    'claim-first',
    'claim-events-shared',
    'line-held',
    'wait-forgotten',
  ];
  for (const name of names) {
    if (!known.includes(name))
      throw new Error(`SIM_VARIANT: unknown variant ${name} (known: ${known.join(', ')})`);
  }
  return {
    sentRule: names.has('handed') ? 'handed' : 'contract',
    kOctets: !names.has('no-k-octets'),
    printJobOnlyPrinters: names.has('print-job-only'),
    operationTimeout: !names.has('no-operation-timeout'),
    claimRule: names.has('inline-unclaimed') ? 'assumed' : names.has('claim-first') ? 'first' : 'confirmed',
    claimEvents: names.has('claim-events-shared') ? 'shared' : 'kept-off',
    lineRule: names.has('line-held') ? 'hold' : 'leave',
    waitRule: names.has('wait-forgotten') ? 'forgotten' : 'kept',
  };
}

/** Transfers and downloads move documents in chunks of this many bytes. */
export const CHUNK_BYTES = 512;

export function drawScenario(seed: number, rng: Prng, variant: SimVariant): Scenario {
  const horizon = rng.int(2_000, 20_000);
  const window = (maxLength: number): Window => {
    const at = rng.int(0, horizon);
    return { at, until: at + rng.int(10, maxLength) };
  };
  const windows = (count: number, maxLength: number) =>
    Array.from({ length: count }, () => window(maxLength));
  const printers = Array.from(
    { length: rng.int(1, 2) },
    (_, i): PrinterPlan => ({
      id: `printer-${i + 1}`,
      createJob: variant.printJobOnlyPrinters ? rng.chance(0.5) : true,
      reportsKOctets: variant.kOctets,
      capacity: rng.int(1, 3),
      onCut: rng.pick(['complete', 'abort', 'wait'] as const),
      operationTimeoutMs: variant.operationTimeout ? rng.pick([30_000, 60_000, 120_000]) : undefined,
      msPerByte: rng.pick([0.01, 0.1, 1]),
      restarts: windows(rng.pick([0, 0, 1, 2]), 3_000).map((w) => ({ ...w, forget: rng.chance(0.3) })),
      stalls: windows(rng.pick([0, 0, 1]), 15_000),
      cutChance: rng.pick([0, 0, 0.02, 0.1]),
      answerLossChance: rng.pick([0, 0, 0.05, 0.2]),
    }),
  );
  const jobs = Array.from(
    { length: rng.int(1, 6) },
    (_, i): JobPlan => ({
      jobId: `job-${seed}-${i + 1}`,
      printerId: rng.pick(printers).id,
      size: rng.pick([1, CHUNK_BYTES, rng.int(2, 6 * CHUNK_BYTES)]),
      arriveAt: rng.chance(0.4) ? 0 : rng.int(0, horizon),
      documentGoneAt: rng.chance(0.08) ? rng.int(0, horizon) : undefined,
    }),
  );
  return {
    seed,
    variant,
    printers,
    jobs,
    outages: windows(rng.pick([0, 0, 1, 2]), 20_000),
    crashChance: rng.pick([0, 0.005, 0.02, 0.05]),
    maxCrashes: rng.int(1, 4),
    tornWriteChance: rng.pick([0, 0.5, 1]),
    eventLossChance: rng.pick([0, 0, 0.05, 0.2]),
    eventAnswerLossChance: rng.pick([0, 0, 0.05, 0.2]),
    eventDuplicateChance: rng.pick([0, 0, 0.1, 0.3]),
    offerDuplicateChance: rng.pick([0, 0.3]),
    downloadCutChance: rng.pick([0, 0, 0.05, 0.2]),
    refetchAlteredChance: rng.pick([0, 0, 0.2, 0.5]),
    // Mostly all in memory (as the agent's 256 KiB takes every simulated document), some worlds
    // with every document spooled or a mix, some with room for only a few held at once.
    smallDocumentBytes: rng.pick([SMALL_DOCUMENT_BYTES, SMALL_DOCUMENT_BYTES, 2 * CHUNK_BYTES, 0]),
    heldDocumentsBytes: rng.pick([HELD_DOCUMENTS_BYTES, HELD_DOCUMENTS_BYTES, 4 * CHUNK_BYTES]),
    latency: rng.pick([
      [1, 5],
      [1, 50],
      [20, 400],
    ] as [number, number][]),
    faultHorizonMs: horizon,
    // Drawn last, so every earlier draw of a seed stays what it was before protocol 3.
    channelProtocol3: rng.chance(0.75),
    inlineDocumentBytes: rng.pick([0, CHUNK_BYTES, 6 * CHUNK_BYTES, 6 * CHUNK_BYTES]),
    inlineLostChance: rng.pick([0, 0, 0.1, 0.3]),
    inlineCorruptChance: rng.pick([0, 0, 0.1, 0.3]),
    channelCutChance: rng.pick([0, 0, 0.05, 0.2]),
    // Drawn after every protocol-3 draw, for the same reason.
    channelProtocol4: rng.chance(0.6),
  };
}

/** True when `t` falls inside one of the windows. */
export function within(windows: readonly Window[], t: number): boolean {
  return windows.some((w) => t >= w.at && t < w.until);
}
