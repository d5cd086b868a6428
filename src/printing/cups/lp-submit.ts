/**
 * Submitting a document to a CUPS queue through `lp`, via the unix-print package.
 *
 * Why unix-print is wrapped rather than called directly: it builds ONE shell command string
 * (`lp '<file>' -d <printer> <options...>`) and runs it with child_process.exec, quoting only
 * the file name; the printer name and every option go to the shell unquoted, so a job name
 * with a space or `;` would break or inject. It also throws plain strings ("No such file"),
 * replaces the whole environment with {SOFTWARE, LANG=C} (so CUPS_SERVER is lost: a server is
 * named with lp's own `-h`), and has no timeout or cancellation. It buffers nothing of the
 * document (lp reads the file itself; only lp's one-line stdout is collected), so large files
 * are fine. This wrapper shell-quotes every argument, passes the queue as an ordinary
 * argument, maps failures to typed errors and parses the job id from lp's "request id is".
 * Stateless; nothing to clean up.
 */
import { PermanentError, RetryableError, ValidationError } from '../../lib/errors.js';

/** The shape of unix-print's print(); injectable for tests of the error mapping. */
export type UnixPrintFunction = (
  file: string,
  printer?: string,
  options?: string[],
) => Promise<{ stdout: string; stderr: string }>;

/** What lp said about the new job. */
export interface LpSubmitted {
  /** CUPS job id (the number after the queue name in the request id). */
  jobId: number;
  /** lp's request id, QUEUE-ID. */
  requestId: string;
}

/** Quotes one argument for /bin/sh (single quotes; embedded single quotes closed and escaped). */
export function shellQuote(argument: string): string {
  return `'${argument.replace(/'/g, `'\\''`)}'`;
}

/** Parses `request id is QUEUE-ID (N file(s))`; undefined when lp printed something else. */
export function parseLpRequestId(stdout: string): LpSubmitted | undefined {
  const match = /request id is (\S+)-(\d+)\b/.exec(stdout);
  if (!match?.[2]) return undefined;
  return { jobId: Number(match[2]), requestId: `${match[1]}-${match[2]}` };
}

/** Maps what unix-print threw to a typed error: unreachable server retryable, rejections permanent. */
export function lpFailure(thrown: unknown, queue: string): Error {
  const text = typeof thrown === 'string' ? thrown : lpStderr(thrown);
  if (/no such file/i.test(text))
    return new PermanentError('document_missing', `lp: the spooled document is missing (${text})`);
  if (/does not exist|not found|unknown printer/i.test(text)) {
    return new PermanentError('queue_not_found', `lp: CUPS queue "${queue}" does not exist (${text})`);
  }
  if (/not accepting|unsupported|not supported|forbidden|not authorized/i.test(text)) {
    return new PermanentError('queue_rejected', `lp: queue "${queue}" rejected the job (${text})`);
  }
  return new RetryableError('cups_unavailable', `lp failed for queue "${queue}": ${text}`, { cause: thrown });
}

/** Runs lp through unix-print for one document. */
export class LpSubmitter {
  constructor(private readonly print: UnixPrintFunction) {}

  /** Sends `documentPath` with the (unquoted) lp arguments; resolves with the CUPS job id. */
  async submit(
    documentPath: string,
    args: string[],
    queue: string,
    signal?: AbortSignal,
  ): Promise<LpSubmitted> {
    signal?.throwIfAborted();
    if (documentPath.includes("'")) {
      throw new ValidationError(
        'documentPath',
        'must not contain a single quote (unix-print quotes it with them)',
      );
    }
    let output: { stdout: string; stderr: string };
    try {
      output = await this.print(documentPath, undefined, args.map(shellQuote));
    } catch (thrown) {
      throw lpFailure(thrown, queue);
    }
    const submitted = parseLpRequestId(output.stdout);
    if (!submitted) {
      throw new RetryableError(
        'cups_unexpected',
        `lp printed no request id for queue "${queue}": ${output.stdout.trim()}`,
      );
    }
    return submitted;
  }
}

function lpStderr(thrown: unknown): string {
  if (
    thrown &&
    typeof thrown === 'object' &&
    'stderr' in thrown &&
    typeof thrown.stderr === 'string' &&
    thrown.stderr.trim()
  ) {
    return thrown.stderr.trim();
  }
  return thrown instanceof Error ? thrown.message.split('\n').slice(-2).join(' ').trim() : String(thrown);
}
