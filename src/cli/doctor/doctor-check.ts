/**
 * The shape of `printrelay doctor`: each check names what it looked at, says ok / warn / fail /
 * skip with a one-line finding, and for anything not ok the fix to apply. Checks run one after
 * another with a time limit each (a hanging peer becomes a failure, not a hanging doctor), and
 * the report prints one aligned line per check. Pure apart from running the checks.
 */
import { errorMessage } from '../../lib/errors.js';

/** How one check came out. */
export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

/** One finding. */
export interface CheckResult {
  /** What was checked: `config`, `tls`, `printer Front Desk`, ... */
  name: string;
  status: CheckStatus;
  detail: string;
  /** What to do about it (warn and fail). */
  fix?: string;
}

/** A named check; it may return several results (one per printer, say). */
export interface Check {
  name: string;
  run(signal: AbortSignal): Promise<CheckResult | CheckResult[]>;
}

/** Shorthands for results. */
export const ok = (name: string, detail: string): CheckResult => ({ name, status: 'ok', detail });
export const skip = (name: string, detail: string): CheckResult => ({ name, status: 'skip', detail });
export const warn = (name: string, detail: string, fix: string): CheckResult => ({
  name,
  status: 'warn',
  detail,
  fix,
});
export const fail = (name: string, detail: string, fix: string): CheckResult => ({
  name,
  status: 'fail',
  detail,
  fix,
});

/** Runs the checks in order, each within `timeoutMs`; a thrown error or timeout is a failure. */
export async function runChecks(checks: readonly Check[], timeoutMs = 15_000): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const check of checks) {
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const outcome = await Promise.race([check.run(signal), rejectOnAbort(signal)]);
      results.push(...(Array.isArray(outcome) ? outcome : [outcome]));
    } catch (error) {
      const detail = signal.aborted ? `no answer within ${timeoutMs / 1000} s` : errorMessage(error);
      results.push(
        fail(check.name, detail, 'see the message; run the doctor again with PRINTRELAY_DEBUG=1 for details'),
      );
    }
  }
  return results;
}

function rejectOnAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) =>
    signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
  );
}

const LABEL: Record<CheckStatus, string> = { ok: 'ok', warn: 'WARN', fail: 'FAIL', skip: 'skip' };

/** The report lines: one per result (fix indented below), then the totals. */
export function formatResults(results: readonly CheckResult[]): string[] {
  const width = Math.max(0, ...results.map((r) => r.name.length));
  const lines: string[] = [];
  for (const r of results) {
    lines.push(`${LABEL[r.status].padEnd(4)}  ${r.name.padEnd(width)}  ${r.detail}`);
    if (r.fix && r.status !== 'ok') lines.push(`${' '.repeat(width + 8)}fix: ${r.fix}`);
  }
  const count = (s: CheckStatus) => results.filter((r) => r.status === s).length;
  lines.push(
    `${count('fail')} failed, ${count('warn')} warnings, ${count('ok')} ok, ${count('skip')} skipped`,
  );
  return lines;
}

/** Exit code: 1 when anything failed. */
export function exitCodeOf(results: readonly CheckResult[]): number {
  return results.some((r) => r.status === 'fail') ? 1 : 0;
}
