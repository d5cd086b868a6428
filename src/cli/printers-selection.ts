/**
 * Which printers `printrelay printers --config FILE` lists: exactly those the agent's printer
 * sync would register, found by the agent's own code rather than a copy of it. The config's
 * discovery sources (syncDiscoverers) run side by side with the config's `discovery.allow` /
 * `discovery.deny` applied to what they find (discoverAll, as PrinterSync does); the enabled
 * static printers come first, one printer per URI and per name (wantedPrinters). The --allow /
 * --deny flags then narrow that final list, static printers included. A failed source is
 * returned by name with its error and never hides the other sources' printers. Nothing to clean up.
 */
import { syncDiscoverers } from '../agent/printer-sync/printer-sync-discovery.js';
import { wantedPrinters } from '../agent/printer-sync/printer-sync-inventory.js';
import type { AgentConfig } from '../config/agent-schema.js';
import type { Logger } from '../log/logger.js';
import {
  type DiscoveryResult,
  discoverAll,
  type PrinterDiscoverer,
} from '../printing/discovery/discovery.js';
import { type PrinterFilter, printerAllowed } from '../printing/discovery/printer-filter.js';
import { candidatesOf, type Survey, type SurveyCandidate } from '../printing/discovery/printer-survey.js';

/** The parts of the agent config that decide which printers are registered. */
export type RegisteringConfig = Pick<AgentConfig, 'printers' | 'discovery'>;

/**
 * The listed printers, given discovery results the config's lists were already applied to:
 * what the agent registers (enabled static printers, then discovered ones; first of a URI or
 * name wins), then only those passing the flags' lists. Pure apart from the logger (name clashes).
 */
export function listedPrinters(
  configured: RegisteringConfig['printers'],
  discovered: DiscoveryResult[],
  flags: PrinterFilter,
  logger: Logger,
): SurveyCandidate[] {
  return wantedPrinters(configured, discovered, logger)
    .map(({ entry, source }) => ({ name: entry.name, uri: entry.uri, source }))
    .filter((p) => printerAllowed(p, flags));
}

/**
 * Runs the config's discovery like the agent does and selects the printers to list.
 * `discoverers` defaults to the agent's syncDiscoverers(config.discovery); tests pass fakes.
 */
export async function configuredCandidates(
  config: RegisteringConfig,
  flags: PrinterFilter,
  options: { logger: Logger; discoverers?: PrinterDiscoverer[]; signal?: AbortSignal },
): Promise<{ candidates: SurveyCandidate[]; failed: Survey['failedSources'] }> {
  const discoverers = options.discoverers ?? syncDiscoverers(config.discovery, options.logger);
  const lists: PrinterFilter = { allow: config.discovery.allow, deny: config.discovery.deny };
  const results = discoverers.length === 0 ? [] : await discoverAll(discoverers, lists, options.signal);
  return {
    candidates: listedPrinters(config.printers, results, flags, options.logger),
    failed: candidatesOf(results).failed,
  };
}
