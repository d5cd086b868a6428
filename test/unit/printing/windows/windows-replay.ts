/**
 * A CommandRunner that replays recorded PowerShell outputs (test/fixtures/windows/) instead of
 * running powershell.exe: each rule matches the -Command script and names the recording to
 * print. It keeps every script it saw, so tests can check what would have run on Windows.
 */
import type { CommandResult, CommandRunner } from '../../../../src/printing/windows/command-runner.js';
import { readFixture } from '../../../support/fixture-files.js';

/** Reads a recording from test/fixtures/windows. */
export function recording(name: string): string {
  return readFixture(`windows/${name}`);
}

/** One replay rule: when the script matches, answer with the recording (stdout, or stderr and exit 1). */
export interface ReplayRule {
  match: RegExp;
  stdout?: string;
  stderr?: string;
}

/** Replays recordings; unmatched scripts fail the test loudly. */
export class ReplayRunner implements CommandRunner {
  readonly scripts: string[] = [];
  readonly programs: string[] = [];

  constructor(private rules: ReplayRule[]) {}

  /** Replaces the rules (a later stage of the same printer). */
  setRules(rules: ReplayRule[]): void {
    this.rules = rules;
  }

  async run(file: string, args: string[]): Promise<CommandResult> {
    const script = args[args.length - 1] ?? '';
    this.programs.push(`${file} ${args.slice(0, -1).join(' ')}`);
    this.scripts.push(script);
    const rule = this.rules.find((r) => r.match.test(script));
    if (!rule) throw new Error(`no recording for script: ${script}`);
    if (rule.stderr !== undefined) return { stdout: '', stderr: rule.stderr, exitCode: 1 };
    return { stdout: rule.stdout ?? '', stderr: '', exitCode: 0 };
  }
}
