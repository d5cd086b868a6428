/**
 * Configuration problems, all reported at once. Each issue says where (file, line, column — or
 * the environment variable that set the value), which field, and which rule it broke.
 */
import { PrintRelayError } from '../lib/errors.js';

/** One broken rule in a configuration file or environment override. */
export interface ConfigIssue {
  /** File name as given by the caller, or `env NAME` for an environment override. */
  file: string;
  /** 1-based line; 0 when the issue has no position (environment overrides). */
  line: number;
  /** 1-based column; 0 when the issue has no position. */
  col: number;
  /** Dotted field path such as `cloud.url` or `printers[0].name`; `(root)` for the whole file. */
  field: string;
  /** The rule in words: `is required`, `unknown key`, `must be >= 1`, ... */
  rule: string;
}

/** One issue as the CLI prints it: `file:line:col: field: rule` (`env NAME: field: rule` for env). */
export function formatIssue(issue: ConfigIssue): string {
  const where = issue.line > 0 ? `${issue.file}:${issue.line}:${issue.col}` : issue.file;
  return `${where}: ${issue.field}: ${issue.rule}`;
}

/** Every issue of one configuration source; the message lists one formatted issue per line. */
export class ConfigError extends PrintRelayError {
  constructor(readonly issues: ConfigIssue[]) {
    super('invalid_config', issues.map(formatIssue).join('\n'));
  }
}

/** Guard for ConfigError. */
export function isConfigError(error: unknown): error is ConfigError {
  return error instanceof ConfigError;
}

/** A dotted field name from path segments: ['printers', 0, 'name'] -> `printers[0].name`. */
export function fieldName(path: readonly (string | number)[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out ? `.${segment}` : segment;
  }
  return out || '(root)';
}
