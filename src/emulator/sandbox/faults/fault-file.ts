/**
 * A fault scenario file (`printrelay emulator --faults FILE`, `printrelay emulator faults add
 * --file FILE`): YAML with `version: 1` and `faults:`, a list of rules as POST
 * /_emulator/faults takes them. Checked like every other file of the project: every issue at
 * once, each with file, line and column (ConfigError), syntax errors and repeated keys included.
 */
import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument } from 'yaml';
import { ConfigError, type ConfigIssue, fieldName } from '../../../config/config-error.js';
import { yamlSyntaxIssues } from '../../../config/load-config.js';
import { YamlLocator } from '../../../config/yaml-locator.js';
import { checkFaultRule, type FaultRuleDraft } from './fault-rule.js';

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The rules of a scenario text; ConfigError listing every issue. */
export function parseFaultFile(text: string, fileName: string): FaultRuleDraft[] {
  return checkFaultFile(text, fileName).drafts;
}

/** The checked rules of a scenario text, as drafts and as written (for POST /_emulator/faults). */
export function checkFaultFile(
  text: string,
  fileName: string,
): { drafts: FaultRuleDraft[]; rules: unknown[] } {
  const syntax = yamlSyntaxIssues(text, fileName);
  if (syntax.length > 0) throw new ConfigError(syntax);
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: false });
  const data = doc.toJS({ maxAliasCount: 1000 }) as unknown;
  const locator = new YamlLocator(doc, lines);
  const issues: ConfigIssue[] = locator.duplicateKeys().map((d) => ({
    file: fileName,
    ...d.position,
    field: fieldName(d.path),
    rule: `duplicate key (first set on line ${d.firstLine})`,
  }));
  const at = (path: (string | number)[], rule: string, key = false): void => {
    const position = key ? locator.keyAt(path) : locator.valueAt(path);
    issues.push({ file: fileName, ...position, field: fieldName(path), rule });
  };
  const drafts: FaultRuleDraft[] = [];
  if (!isRecord(data)) at([], 'must be a mapping with version: 1 and faults: [rules]');
  else {
    for (const key of Object.keys(data))
      if (key !== 'version' && key !== 'faults') at([key], 'unknown key (known: version, faults)', true);
    if (data['version'] !== 1)
      at(['version'], data['version'] === undefined ? 'is required (1)' : 'must be 1');
    const rules = data['faults'];
    if (!Array.isArray(rules)) at(['faults'], 'must be a list of fault rules', rules === undefined);
    else
      rules.forEach((rule, index) => {
        const { draft, issues: found } = checkFaultRule(rule);
        for (const issue of found)
          at(['faults', index, ...issue.path], issue.rule, issue.rule.startsWith('unknown key'));
        if (draft) drafts.push(draft);
      });
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return { drafts, rules: (data as { faults: unknown[] }).faults };
}

/** Reads and checks a scenario file; ConfigError when unreadable or invalid. */
export function loadFaultFile(path: string): FaultRuleDraft[] {
  return checkFaultFile(readScenario(path), path).drafts;
}

/** The rules of a scenario file as written, once checked; ConfigError when unreadable or invalid. */
export function loadFaultFileRules(path: string): unknown[] {
  return checkFaultFile(readScenario(path), path).rules;
}

function readScenario(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError([
      { file: path, line: 0, col: 0, field: '(file)', rule: `cannot be read (${code})` },
    ]);
  }
  return text;
}
