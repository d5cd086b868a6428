/**
 * The discovery sources the agent's `discovery` config section enables: CUPS (the configured
 * server, else CUPS_SERVER, else localhost:631), the Windows spooler (enable it on Windows only:
 * elsewhere the source fails, and a failed source holds back every delete) and DNS-SD.
 * Nothing to clean up.
 */
import type { AgentDiscoveryConfig } from '../../config/agent-schema.js';
import type { Logger } from '../../log/logger.js';
import { CupsDiscoverer, type CupsServer } from '../../printing/cups/cups-printers.js';
import type { PrinterDiscoverer } from '../../printing/discovery/discovery.js';
import { DnsSdDiscoverer } from '../../printing/discovery/dnssd-discovery.js';
import { cupsServerFromEnv } from '../../printing/discovery/machine-discoverers.js';
import { WindowsDiscoverer } from '../../printing/windows/windows-discovery.js';

/** The CUPS server of the config (HOST or HOST:PORT), else the environment's. */
export function cupsServerOf(
  discovery: Pick<AgentDiscoveryConfig, 'cups_server'>,
  env: Record<string, string | undefined>,
): CupsServer {
  if (discovery.cups_server) return cupsServerFromEnv({ CUPS_SERVER: discovery.cups_server });
  return cupsServerFromEnv(env);
}

/** The discoverers to run, in a fixed order (cups, winspool, dnssd). */
export function syncDiscoverers(
  discovery: AgentDiscoveryConfig,
  logger: Logger,
  env: Record<string, string | undefined> = process.env,
): PrinterDiscoverer[] {
  const list: PrinterDiscoverer[] = [];
  if (discovery.cups) list.push(new CupsDiscoverer({ logger, server: cupsServerOf(discovery, env) }));
  if (discovery.winspool) list.push(new WindowsDiscoverer({ logger }));
  if (discovery.dnssd) list.push(new DnsSdDiscoverer({ logger }));
  return list;
}
