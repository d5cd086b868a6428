/**
 * `printrelay printers [--config FILE] [--json] [--dnssd] [--allow GLOB] [--deny GLOB]`: lists
 * what the agent would register, each printer described by its backend with the mapped printer
 * properties. With --config exactly what that agent registers: its enabled `printers` plus what
 * its `discovery` sources find through its `discovery.allow`/`deny` lists (printers-selection.ts,
 * the agent's own code); without, every printer the machine's backends discover (CUPS queues or
 * Windows printers, plus DNS-SD with --dnssd). --allow/--deny narrow the list further in both
 * cases. A discovery source that fails is reported by name and makes the exit code 1; it never
 * reads as "no printers" and never hides the other sources' printers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { loadAgentConfig } from '../../config/load-config.js';
import { ValidationError, ValidationErrors } from '../../lib/errors.js';
import { silentLogger } from '../../log/logger.js';
import { defaultBackendRegistry } from '../../printing/backend-registry.js';
import { discoverAll } from '../../printing/discovery/discovery.js';
import { machineDiscoverers } from '../../printing/discovery/machine-discoverers.js';
import { type PrinterFilter, validatePrinterFilter } from '../../printing/discovery/printer-filter.js';
import {
  candidatesOf,
  type Survey,
  type SurveyCandidate,
  surveyPrinters,
} from '../../printing/discovery/printer-survey.js';
import { parseIntegerOption } from '../cli-runtime.js';
import { configuredCandidates } from '../printers-selection.js';

/** Flags of the command. */
export interface PrintersFlags {
  config?: string;
  json?: boolean;
  dnssd?: boolean;
  allow?: string[];
  deny?: string[];
  browseMs?: string;
}

/** Builds the survey for the flags; the caller prints it. */
export async function runPrintersSurvey(flags: PrintersFlags, signal?: AbortSignal): Promise<Survey> {
  const filter: PrinterFilter = { allow: flags.allow ?? [], deny: flags.deny ?? [] };
  const problems = validatePrinterFilter(filter);
  if (flags.config && flags.dnssd)
    problems.push(new ValidationError('--dnssd', "with --config the config's discovery.dnssd decides"));
  if (problems.length > 0) throw new ValidationErrors(problems);
  const logger = silentLogger();
  let candidates: SurveyCandidate[];
  let failedSources: Survey['failedSources'] = [];
  if (flags.config) {
    const config = loadAgentConfig(flags.config);
    ({ candidates, failed: failedSources } = await configuredCandidates(config, filter, { logger, signal }));
  } else {
    const browseMs =
      flags.browseMs === undefined
        ? undefined
        : parseIntegerOption('--browse-ms', flags.browseMs, 100, 60_000);
    const results = await discoverAll(
      machineDiscoverers({ logger, dnssd: flags.dnssd, browseMs }),
      filter,
      signal,
    );
    ({ candidates, failed: failedSources } = candidatesOf(results));
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'printrelay-printers-'));
  try {
    const printers = await surveyPrinters(candidates, {
      registry: defaultBackendRegistry(),
      dataDir,
      logger,
      signal,
    });
    return { printers, failedSources };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The survey as text lines for a terminal. Pure. */
export function formatSurvey(survey: Survey): string[] {
  const lines: string[] = [];
  for (const p of survey.printers) {
    if (!p.ok) {
      lines.push(`${p.name}  ${p.uri}  [${p.source}]  ERROR: ${p.error}`);
      continue;
    }
    const props = p.properties;
    lines.push(`${p.name}  ${p.uri}  [${p.source}]  ${p.state} (${(p.stateReasons ?? []).join(', ')})`);
    lines.push(`  model: ${p.makeAndModel}`);
    if (props) {
      lines.push(
        `  color: ${props.ColorSupported ? 'yes' : 'no'}  duplex: ${props.DuplexSupported ? 'yes' : 'no'}`,
      );
      lines.push(`  paper: ${props.MediaSupported.join(', ') || '-'}`);
      lines.push(`  resolutions: ${props.Resolutions.join(', ') || '-'}`);
    }
  }
  if (survey.printers.length === 0) lines.push('no printers');
  for (const f of survey.failedSources) lines.push(`discovery failed (${f.source}): ${f.error}`);
  return lines;
}

/** Registers `printers`. */
export function registerPrintersCommand(program: Command): void {
  const collect = (value: string, previous: string[] = []) => [...previous, value];
  program
    .command('printers')
    .description('list the printers the agent would register, with their mapped properties')
    .option(
      '--config <file>',
      "agent.yaml: its printers plus what its discovery section finds (default: the machine's printers)",
    )
    .option('--json', 'print JSON')
    .option('--dnssd', 'without --config: also browse the LAN for IPP printers (DNS-SD)')
    .option('--browse-ms <ms>', 'without --config: DNS-SD browse window in milliseconds', '2000')
    .option(
      '--allow <glob>',
      'keep only printers whose name or URI matches (repeatable; narrows --config)',
      collect,
    )
    .option(
      '--deny <glob>',
      'drop printers whose name or URI matches (repeatable; narrows --config)',
      collect,
    )
    .action(async (flags: PrintersFlags) => {
      const survey = await runPrintersSurvey(flags);
      const text = flags.json ? JSON.stringify(survey, null, 2) : formatSurvey(survey).join('\n');
      process.stdout.write(`${text}\n`);
      if (survey.failedSources.length > 0) process.exitCode = 1;
    });
}
