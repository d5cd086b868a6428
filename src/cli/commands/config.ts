/**
 * `printrelay config validate FILE [--kind agent|emulator] [--json]`: every problem of a
 * configuration file as `file:line:col: field: rule` (exit 1), or `valid` (exit 0). The kind is
 * guessed from the content when omitted. `--json` prints one document on standard output instead:
 * `{ file, kind, valid, issues: [{ file, line, col, field, rule }] }` (line and col 0 when a
 * problem has no position), with the same exit code.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { checkConfig } from '../../config/check-config.js';
import { type ConfigKind, formatIssue, guessConfigKind, yamlSyntaxIssues } from '../../config/load-config.js';
import type { ConfigIssue } from '../../config/config-error.js';
import { CliError } from '../cli-runtime.js';

/** Result of validating one file: the lines to print, the problems, the kind and the exit code. */
export interface ValidationReport {
  lines: string[];
  exitCode: number;
  /** Every problem (empty when valid). */
  issues: ConfigIssue[];
  /** The kind checked against; undefined when it could not be told. */
  kind?: ConfigKind;
}

/** The --json document of a report. Pure. */
export function validationJson(file: string, report: ValidationReport): string {
  const document = { file, kind: report.kind ?? null, valid: report.exitCode === 0, issues: report.issues };
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** A problem of the whole file (unreadable, kind unknown), without a position. */
function fileIssue(file: string, rule: string): ConfigIssue {
  return { file, line: 0, col: 0, field: '(root)', rule };
}

/** Validates one file; pure apart from reading it and the environment for overrides. */
export function validateConfigFile(
  file: string,
  kind?: string,
  env: Record<string, string | undefined> = process.env,
): ValidationReport {
  if (kind !== undefined && kind !== 'agent' && kind !== 'emulator') {
    throw new CliError(`--kind: must be one of: agent, emulator (got "${kind}")`);
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const rule = `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
    return { lines: [`${file}: ${rule}`], exitCode: 1, issues: [fileIssue(file, rule)] };
  }
  const syntax = yamlSyntaxIssues(text, file);
  if (syntax.length > 0) {
    return { lines: syntax.map(formatIssue), exitCode: 1, issues: syntax, ...(kind ? { kind } : {}) };
  }
  const chosen: ConfigKind | undefined = kind ?? guessConfigKind(text);
  if (!chosen) {
    const rule = 'cannot tell whether this is an agent or an emulator file; pass --kind agent|emulator';
    return { lines: [`${file}: ${rule}`], exitCode: 1, issues: [fileIssue(file, rule)] };
  }
  const issues = checkConfig(chosen, text, file, { env });
  if (issues.length === 0) return { lines: ['valid'], exitCode: 0, issues, kind: chosen };
  return { lines: issues.map(formatIssue), exitCode: 1, issues, kind: chosen };
}

/** Registers `config validate`. */
export function registerConfigCommand(program: Command): void {
  const config = program.command('config').description('work with configuration files');
  config
    .command('validate')
    .description('check a configuration file and print every problem with its line and column')
    .argument('<file>', 'agent.yaml or an emulator seed file')
    .option('--kind <kind>', 'agent or emulator (default: guessed from the content)')
    .option('--json', 'print { file, kind, valid, issues } as JSON on standard output')
    .action((file: string, options: { kind?: string; json?: boolean }) => {
      const report = validateConfigFile(file, options.kind);
      if (options.json) process.stdout.write(validationJson(file, report));
      else (report.exitCode === 0 ? process.stdout : process.stderr).write(`${report.lines.join('\n')}\n`);
      process.exitCode = report.exitCode;
    });
}
