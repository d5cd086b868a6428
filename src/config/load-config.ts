/**
 * Loading the two configuration files: YAML parsed with positions, environment overrides
 * (agent only), secret references, then schema validation with defaults. Every problem is
 * collected and thrown at once in a ConfigError listing `file:line:col: field: rule`.
 * Synchronous; nothing stays open. The agent's file is read here; the emulator seed's in
 * emulator-seed-config.ts, so that the agent never loads the seed's generated validator
 * (docs/performance.md, *Round 4: the idle agent*); check-config.ts checks either.
 */
import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument, type YAMLError } from 'yaml';
import { agentRuleIssues } from './agent-rules.js';
import type { AgentConfig } from './agent-schema.js';
import { ConfigError, type ConfigIssue, fieldName } from './config-error.js';
import { type AppliedOverride, applyEnvOverrides, type OverrideSchema } from './env-overrides.js';
import * as agentValidator from './generated/agent-config-validator.js';
import { type GeneratedValidator, type SchemaIssue, SchemaValidator } from './schema-validator.js';
import { resolveSecretRefs } from './secret-refs.js';
import { YamlLocator } from './yaml-locator.js';

export { ConfigError, type ConfigIssue, formatIssue, isConfigError } from './config-error.js';
export { DEMO, defaultEmulatorSeed } from './demo-seed.js';

/** Which of the two files. */
export type ConfigKind = 'agent' | 'emulator';

/** Inputs besides the text; tests pass their own environment. */
export interface LoadOptions {
  /** Environment for overrides and `${env:NAME}` references; default process.env. */
  env?: Record<string, string | undefined>;
}

/** How one kind of file is checked beyond YAML: its validator, overrides and rules. */
export interface ConfigKindRules {
  /** The plain schema, when environment overrides apply (they convert values to its types). */
  envOverrides?: OverrideSchema;
  validator: SchemaValidator;
  /** Rules across fields, checked once the schema passed. */
  rules?: (data: unknown) => SchemaIssue[];
}

/** agent.yaml: the generated validator, environment overrides and the rules across fields. */
export const AGENT_CONFIG_RULES: ConfigKindRules = {
  envOverrides: agentValidator.schema,
  validator: new SchemaValidator(agentValidator.validate as GeneratedValidator),
  rules: (data) => agentRuleIssues(data as AgentConfig),
};

/** Parses and validates agent.yaml text; throws ConfigError with every issue. */
export function parseAgentConfig(text: string, fileName: string, options: LoadOptions = {}): AgentConfig {
  return parseConfigText(AGENT_CONFIG_RULES, text, fileName, options) as AgentConfig;
}

/** Reads and validates an agent configuration file (see parseAgentConfig). */
export function loadAgentConfig(path: string, options: LoadOptions = {}): AgentConfig {
  return parseAgentConfig(readConfigSource(path), path, options);
}

/** The YAML syntax errors of a text, each at its real line and column; empty when it parses. */
export function yamlSyntaxIssues(text: string, fileName: string): ConfigIssue[] {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: false });
  return syntaxIssues(doc.errors, lines, fileName);
}

function syntaxIssues(errors: readonly YAMLError[], lines: LineCounter, fileName: string): ConfigIssue[] {
  return errors.map((e) => {
    const at = lines.linePos(e.pos[0]);
    return {
      file: fileName,
      line: at.line,
      col: at.col,
      field: '(yaml)',
      rule: e.message.split('\n')[0] ?? e.code,
    };
  });
}

/** Which file this looks like: a seed has `organizations`, an agent file `cloud` or `printers`. */
export function guessConfigKind(text: string): ConfigKind | undefined {
  const doc = parseDocument(text);
  const data = doc.errors.length ? undefined : (doc.toJS() as unknown);
  if (!data || typeof data !== 'object' || Array.isArray(data)) return undefined;
  if ('organizations' in data) return 'emulator';
  if ('cloud' in data || 'printers' in data || 'connector' in data) return 'agent';
  return undefined;
}

/** The text of a configuration file; a ConfigError naming the file when it cannot be read. */
export function readConfigSource(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError([
      { file: path, line: 0, col: 0, field: '(file)', rule: `cannot be read (${code})` },
    ]);
  }
}

/**
 * Parses `text` as YAML and checks it by `kind` (overrides, secret references, schema, rules);
 * the data with defaults, or a ConfigError with every issue.
 */
export function parseConfigText(
  kind: ConfigKindRules,
  text: string,
  fileName: string,
  options: LoadOptions = {},
): unknown {
  const env = options.env ?? process.env;
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: false });
  if (doc.errors.length > 0) throw new ConfigError(syntaxIssues(doc.errors, lines, fileName));
  const data = (doc.toJS({ maxAliasCount: 1000 }) as unknown) ?? {};
  const locator = new YamlLocator(doc, lines);
  const issues: ConfigIssue[] = locator.duplicateKeys().map((d) => ({
    file: fileName,
    ...d.position,
    field: fieldName(d.path),
    rule: `duplicate key (first set on line ${d.firstLine})`,
  }));
  let applied: AppliedOverride[] = [];
  if (kind.envOverrides && isRecord(data)) {
    const result = applyEnvOverrides(data, kind.envOverrides, env);
    applied = result.applied;
    for (const p of result.problems) issues.push(envIssue(p.name, p.path, p.rule));
  }
  for (const p of resolveSecretRefs(data, env))
    issues.push(place({ path: p.path, rule: p.rule, anchor: 'value' }));
  for (const issue of kind.validator.check(data)) issues.push(place(issue));
  if (issues.length === 0) for (const issue of kind.rules?.(data) ?? []) issues.push(place(issue));
  if (issues.length > 0) throw new ConfigError(sortIssues(issues));
  return data;

  function place(issue: SchemaIssue): ConfigIssue {
    const override = applied.find((o) => startsWith(issue.path, o.path) || startsWith(o.path, issue.path));
    if (override && (startsWith(issue.path, override.path) || issue.anchor === 'key')) {
      return envIssue(override.name, issue.path, issue.rule);
    }
    const pos =
      issue.anchor === 'value'
        ? locator.valueAt(issue.path)
        : issue.anchor === 'key'
          ? locator.keyAt(issue.path)
          : locator.keyAt(issue.path.slice(0, -1));
    return { file: fileName, line: pos.line, col: pos.col, field: fieldName(issue.path), rule: issue.rule };
  }
}

function envIssue(name: string, path: (string | number)[], rule: string): ConfigIssue {
  return { file: `env ${name}`, line: 0, col: 0, field: fieldName(path), rule };
}

function startsWith(path: readonly (string | number)[], prefix: readonly (string | number)[]): boolean {
  return prefix.length <= path.length && prefix.every((segment, i) => String(path[i]) === String(segment));
}

function sortIssues(issues: ConfigIssue[]): ConfigIssue[] {
  const fromEnv = (i: ConfigIssue) => (i.line === 0 ? 1 : 0);
  return [...issues].sort(
    (a, b) => fromEnv(a) - fromEnv(b) || a.line - b.line || a.col - b.col || a.field.localeCompare(b.field),
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
