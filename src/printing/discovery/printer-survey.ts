/**
 * What `printrelay printers` shows: every printer the agent would register, described by its
 * backend and mapped to the printer properties the connector uploads. Printers come from the
 * configuration or from discovery; one printer failing to answer is reported on its row and
 * never hides the others. Backends are closed before returning.
 */
import { errorMessage } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type { PrinterCapabilityProperties } from '../../protocol/printer-properties.js';
import type { BackendRegistry } from '../backend-registry.js';
import type { PrinterState } from '../printer-backend.js';
import { ippToPrinterProperties } from '../translate/capabilities/ipp-to-properties.js';
import type { DiscoveryResult } from './discovery.js';

/** One printer to describe. */
export interface SurveyCandidate {
  name: string;
  uri: string;
  /** config, cups, winspool or dnssd. */
  source: string;
}

/** One row of the survey. */
export interface SurveyRow extends SurveyCandidate {
  ok: boolean;
  makeAndModel?: string;
  state?: PrinterState;
  stateReasons?: string[];
  documentFormats?: string[];
  properties?: PrinterCapabilityProperties;
  error?: string;
}

/** The survey: rows plus the discovery sources that failed. */
export interface Survey {
  printers: SurveyRow[];
  failedSources: { source: string; error: string }[];
}

/** Candidates of the successful discovery results, and the failed sources. */
export function candidatesOf(results: DiscoveryResult[]): {
  candidates: SurveyCandidate[];
  failed: Survey['failedSources'];
} {
  const candidates: SurveyCandidate[] = [];
  const failed: Survey['failedSources'] = [];
  for (const r of results) {
    if (r.ok) candidates.push(...r.printers.map((p) => ({ name: p.name, uri: p.uri, source: p.source })));
    else failed.push({ source: r.source, error: r.error });
  }
  return { candidates, failed };
}

/** Describes every candidate (at most `concurrency` at once) and maps its properties. */
export async function surveyPrinters(
  candidates: SurveyCandidate[],
  deps: {
    registry: BackendRegistry;
    dataDir: string;
    logger: Logger;
    signal?: AbortSignal;
    concurrency?: number;
  },
): Promise<SurveyRow[]> {
  const rows: SurveyRow[] = new Array(candidates.length);
  let next = 0;
  const worker = async () => {
    while (next < candidates.length) {
      const index = next++;
      const candidate = candidates[index] as SurveyCandidate;
      rows[index] = await describeOne(candidate, deps);
    }
  };
  await Promise.all(Array.from({ length: Math.min(deps.concurrency ?? 4, candidates.length) }, worker));
  return rows;
}

async function describeOne(
  candidate: SurveyCandidate,
  deps: { registry: BackendRegistry; dataDir: string; logger: Logger; signal?: AbortSignal },
): Promise<SurveyRow> {
  let backend: ReturnType<BackendRegistry['create']> | undefined;
  try {
    backend = deps.registry.create(candidate.uri, { dataDir: deps.dataDir, logger: deps.logger });
    const description = await backend.describe(deps.signal);
    return {
      ...candidate,
      ok: true,
      makeAndModel: description.makeAndModel,
      state: description.state,
      stateReasons: description.stateReasons,
      documentFormats: description.documentFormats,
      properties: ippToPrinterProperties(description.attributes),
    };
  } catch (error) {
    return { ...candidate, ok: false, error: errorMessage(error) };
  } finally {
    await backend?.close().catch(() => undefined);
  }
}
