/**
 * Reads the last `npm run mutate` report (reports/mutation/mutation.json) and prints, per file,
 * the mutation score with the equivalent mutants left out (scripts/mutation-equivalents.ts), and
 * every mutant that survived or had no coverage: line, column, mutator, the mutated code and its
 * replacement, marked `equivalent` when listed. `npm run mutate:survivors [path-part]` narrows the
 * files to those whose path contains the argument. Read-only; writes nothing.
 */
import { readFileSync } from 'node:fs';
import { EQUIVALENT_MUTANTS } from './mutation-equivalents.js';

interface Position {
  line: number;
  column: number;
}

interface Mutant {
  mutatorName: string;
  replacement?: string;
  status: string;
  location: { start: Position; end: Position };
}

interface Report {
  files: Record<string, { source: string; mutants: Mutant[] }>;
}

const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);
const reportPath = 'reports/mutation/mutation.json';
const filter = process.argv[2] ?? '';

/** The source text a mutant replaces (lines and columns are 1-based). */
function originalOf(lines: readonly string[], { start, end }: Mutant['location']): string {
  const picked = lines.slice(start.line - 1, end.line);
  if (picked.length === 0) return '';
  picked[picked.length - 1] = (picked[picked.length - 1] ?? '').slice(0, end.column - 1);
  picked[0] = (picked[0] ?? '').slice(start.column - 1);
  return picked.join('\n');
}

function isEquivalent(file: string, original: string, line: string, m: Mutant): boolean {
  return EQUIVALENT_MUTANTS.some(
    (e) =>
      (e.file === file || file.endsWith(`/${e.file}`)) &&
      e.original === original &&
      e.mutator === m.mutatorName &&
      e.replacement === m.replacement &&
      (e.line === undefined || line.includes(e.line)),
  );
}

const report = JSON.parse(readFileSync(reportPath, 'utf8')) as Report;
for (const [file, { source, mutants }] of Object.entries(report.files)) {
  if (!file.includes(filter)) continue;
  const lines = source.split('\n');
  const undetected = mutants
    .filter((m) => UNDETECTED.has(m.status))
    .map((m) => ({ m, original: originalOf(lines, m.location) }))
    .map((u) => ({
      ...u,
      equivalent: isEquivalent(file, u.original, lines[u.m.location.start.line - 1] ?? '', u.m),
    }));
  const detected = mutants.filter((m) => DETECTED.has(m.status)).length;
  const equivalent = undetected.filter((u) => u.equivalent).length;
  const valid = detected + undetected.length - equivalent;
  const score = valid === 0 ? 100 : (100 * detected) / valid;
  console.log(
    `${file}: ${score.toFixed(2)}% (${detected} detected of ${valid}; ${equivalent} equivalent; ${mutants.length} mutants)`,
  );
  for (const { m, original, equivalent: eq } of undetected.sort(
    (a, b) => a.m.location.start.line - b.m.location.start.line,
  )) {
    const { line, column } = m.location.start;
    const flat = (s: string) => s.replace(/\s+/g, ' ').slice(0, 100);
    console.log(
      `  ${line}:${column} ${eq ? 'equivalent' : m.status} ${m.mutatorName}: ${flat(original)} -> ${flat(m.replacement ?? '')}`,
    );
  }
}
