/**
 * `printrelay config validate FILE [--kind agent|emulator]`: every problem of a configuration
 * file as `file:line:col: field: rule` (exit 1), or `valid` (exit 0). The kind is guessed from
 * the content when omitted.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import {
  type ConfigKind,
  checkConfig,
  formatIssue,
  guessConfigKind,
  yamlSyntaxIssues,
} from '../../config/load-config.js';
import { CliError } from '../cli-runtime.js';

/** Result of validating one file: the lines to print and the exit code. */
export interface ValidationReport {
  lines: string[];
  exitCode: number;
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
    return {
      lines: [`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`],
      exitCode: 1,
    };
  }
  const syntax = yamlSyntaxIssues(text, file);
  if (syntax.length > 0) return { lines: syntax.map(formatIssue), exitCode: 1 };
  const chosen: ConfigKind | undefined = kind ?? guessConfigKind(text);
  if (!chosen) {
    return {
      lines: [
        `${file}: cannot tell whether this is an agent or an emulator file; pass --kind agent|emulator`,
      ],
      exitCode: 1,
    };
  }
  const issues = checkConfig(chosen, text, file, { env });
  if (issues.length === 0) return { lines: ['valid'], exitCode: 0 };
  return { lines: issues.map(formatIssue), exitCode: 1 };
}

/** Registers `config validate`. */
export function registerConfigCommand(program: Command): void {
  const config = program.command('config').description('work with configuration files');
  config
    .command('validate')
    .description('check a configuration file and print every problem with its line and column')
    .argument('<file>', 'agent.yaml or an emulator seed file')
    .option('--kind <kind>', 'agent or emulator (default: guessed from the content)')
    .action((file: string, options: { kind?: string }) => {
      const report = validateConfigFile(file, options.kind);
      const out = report.exitCode === 0 ? process.stdout : process.stderr;
      out.write(`${report.lines.join('\n')}\n`);
      process.exitCode = report.exitCode;
    });
}
