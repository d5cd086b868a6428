/**
 * The one process boundary of the Windows backend: every PowerShell query goes through a
 * CommandRunner, so tests replay recorded outputs instead of needing Windows. ExecFileRunner
 * runs a real program (no shell) with a timeout and an AbortSignal; PowerShell wraps a runner
 * with the flags, the UTF-8 output encoding and the JSON decoding every query needs.
 * Neither holds resources between calls; nothing to clean up.
 */
import { execFile } from 'node:child_process';
import { PermanentError, RetryableError } from '../../lib/errors.js';

/** What a finished program printed. */
export interface CommandResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** Runs one program with arguments (never through a shell). */
export interface CommandRunner {
  run(
    file: string,
    args: string[],
    options?: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<CommandResult>;
}

/** Runs programs with child_process.execFile; a non-zero exit is a result, not a throw. */
export class ExecFileRunner implements CommandRunner {
  run(
    file: string,
    args: string[],
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<CommandResult> {
    return new Promise((resolve, reject) => {
      execFile(
        file,
        args,
        {
          signal: options.signal,
          timeout: options.timeoutMs ?? 30_000,
          maxBuffer: 16 * 1024 * 1024,
          windowsHide: true,
        },
        (error, stdout, stderr) => {
          const code = (error as { code?: unknown } | null)?.code;
          if (error && typeof code !== 'number') {
            reject(runFailure(file, error, options.signal));
            return;
          }
          resolve({
            stdout: String(stdout),
            stderr: String(stderr),
            exitCode: typeof code === 'number' ? code : 0,
          });
        },
      );
    });
  }
}

function runFailure(file: string, error: Error & { killed?: boolean }, signal?: AbortSignal): unknown {
  if (signal?.aborted) return signal.reason;
  if (error.killed) {
    return new RetryableError('command_timeout', `${file} did not finish in time and was stopped`, {
      cause: error,
    });
  }
  return new RetryableError('command_failed', `${file} could not run: ${error.message}`, { cause: error });
}

/** Quotes a value as a PowerShell single-quoted string literal. */
export function psQuote(value: string): string {
  return `'${value.replace(/['\u2018\u2019\u201a\u201b]/g, (q) => q + q)}'`;
}

const PRELUDE =
  "$ErrorActionPreference = 'Stop'; [Console]::OutputEncoding = [System.Text.UTF8Encoding]::new($false); ";

/** Runs PowerShell scripts that print JSON. Construct with a runner; nothing to clean up. */
export class PowerShell {
  constructor(
    private readonly runner: CommandRunner,
    private readonly options: { executable?: string; timeoutMs?: number } = {},
  ) {}

  /** Runs `script` and decodes its stdout as JSON (empty output is null). */
  async json(script: string, what: string, signal?: AbortSignal): Promise<unknown> {
    const result = await this.runner.run(
      this.options.executable ?? 'powershell.exe',
      ['-NoProfile', '-NonInteractive', '-ExecutionPolicy', 'Bypass', '-Command', PRELUDE + script],
      { signal, timeoutMs: this.options.timeoutMs ?? 30_000 },
    );
    if (result.exitCode !== 0) throw powerShellFailure(what, result.stderr || result.stdout);
    const text = result.stdout.replace(/^\uFEFF/, '').trim();
    if (text === '') return null;
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new RetryableError(
        'powershell_output',
        `${what}: PowerShell printed no JSON: ${text.slice(0, 200)}`,
        { cause: error },
      );
    }
  }
}

/** Maps PowerShell's error text to a typed error: a missing printer is permanent, the rest retryable. */
export function powerShellFailure(what: string, stderr: string): Error {
  const line =
    stderr
      .split(/\r?\n/)
      .find((l) => l.trim() !== '')
      ?.trim() ?? 'failed without a message';
  if (/no printer|not found|cannot find|does not exist|0x80070709/i.test(stderr)) {
    return new PermanentError('printer_not_found', `${what}: ${line}`);
  }
  return new RetryableError('powershell_failed', `${what}: ${line}`);
}
