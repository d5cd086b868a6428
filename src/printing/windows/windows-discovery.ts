/**
 * Discovers the printers of the Windows spooler (Get-Printer through the injectable runner) as
 * winspool:// candidates. A failed query is an error result, never an empty list. Nothing to clean up.
 */
import type { Logger } from '../../log/logger.js';
import { type DiscoveryResult, discoveryResult, type PrinterDiscoverer } from '../discovery/discovery.js';
import { type CommandRunner, ExecFileRunner, PowerShell } from './command-runner.js';
import { windowsPrintersToEntries } from './windows-attributes.js';
import { readPrinters } from './windows-queries.js';

/** Lists Windows printers. Construct, call discover(). */
export class WindowsDiscoverer implements PrinterDiscoverer {
  readonly source = 'winspool';

  constructor(private readonly options: { logger: Logger; runner?: CommandRunner }) {}

  async discover(signal?: AbortSignal): Promise<DiscoveryResult> {
    const ps = new PowerShell(this.options.runner ?? new ExecFileRunner());
    const result = await discoveryResult(this.source, async () =>
      windowsPrintersToEntries(await readPrinters(ps, signal)).map((p) => ({ ...p, source: this.source })),
    );
    if (!result.ok) this.options.logger.warn({ error: result.error }, 'Windows printer discovery failed');
    return result;
  }
}
