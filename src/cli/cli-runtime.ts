/**
 * What every command shares: the root logger with its Redactor, a clean error exit, and the
 * signal policy (the first SIGTERM/SIGINT drains, a second one or a timeout forces the exit).
 */
import type { Command } from 'commander';
import type { DestinationStream } from 'pino';
import type { FileMigration } from '../config/config-migrations.js';
import { PrintRelayError } from '../lib/errors.js';
import { createLogger, type Logger } from '../log/logger.js';
import { Redactor } from '../log/redaction.js';
import { EXIT_CODES } from './exit-codes.js';

/** An error the CLI reports as one clear line (no stack) with the given exit code. */
export class CliError extends PrintRelayError {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super('cli_error', message);
  }
}

/** Logger settings every long-running command accepts. */
export interface LogFlags {
  logLevel?: string;
  pretty?: boolean;
}

/** Adds `--log-level` (its default shown in --help) and `--pretty/--no-pretty` to a command. */
export function addLogOptions(command: Command, defaultLevel = 'info'): Command {
  return command
    .option(
      '--log-level <level>',
      `trace, debug, info, warn, error, fatal or silent (default: ${defaultLevel}; or PRINTRELAY_LOG_LEVEL)`,
    )
    .option('--pretty', 'human-readable log lines (default when stdout is a terminal)')
    .option('--no-pretty', 'JSON log lines');
}

/**
 * The root logger of one command run, and its Redactor: register configured secrets with
 * `redactor.add(...)` before anything logs. The logger writes to stdout and needs no cleanup.
 */
export function createCliLogger(
  flags: LogFlags,
  defaults: { level?: string; pretty?: boolean; destination?: DestinationStream } = {},
) {
  const redactor = new Redactor();
  const level = flags.logLevel ?? process.env.PRINTRELAY_LOG_LEVEL ?? defaults.level;
  const pretty = flags.pretty ?? defaults.pretty;
  const logger = createLogger({
    redactor,
    ...(level ? { level } : {}),
    ...(pretty === undefined ? {} : { pretty }),
    ...(defaults.destination ? { destination: defaults.destination } : {}),
  });
  return { logger, redactor };
}

/**
 * The `pretty` default of a long-running command: never under systemd (stdout goes to the
 * journal, which wants one JSON object per line; JOURNAL_STREAM or INVOCATION_ID tell), else
 * the file's choice (undefined: pretty on a terminal).
 */
export function logPrettyDefault(
  fromFile: boolean | undefined,
  env: Record<string, string | undefined> = process.env,
): { pretty?: boolean } {
  if (underSystemd(env)) return { pretty: false };
  return fromFile === undefined ? {} : { pretty: fromFile };
}

/** Whether systemd started this process (its stdout is the journal). */
export function underSystemd(env: Record<string, string | undefined> = process.env): boolean {
  return Boolean(env.JOURNAL_STREAM || env.INVOCATION_ID);
}

/** Logs a migrated configuration file: versions, what changed, the backup (or why none). */
export function logMigration(logger: Logger, m: FileMigration): void {
  const where = m.backup ? `original kept in ${m.backup}` : `${m.notWritten}; migrated in memory only`;
  logger.warn(
    { file: m.file, from: m.from, to: m.to, changes: m.changes, ...(m.backup ? { backup: m.backup } : {}) },
    `configuration file migrated from version ${m.from} to ${m.to}: ${m.changes.join('; ')}; ${where}`,
  );
}

/**
 * Calls `reload()` on SIGHUP, one at a time: a signal during a reload runs one more after it.
 * Returns a function that removes the handler.
 */
export function onReloadSignal(
  reload: () => Promise<void>,
  options: { logger: Logger; target?: NodeJS.EventEmitter },
): () => void {
  const target = options.target ?? process;
  let running: Promise<void> | undefined;
  let again = false;
  const run = (): void => {
    running = reload()
      .catch((error: unknown) => options.logger.error({ err: error }, 'configuration reload failed'))
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          run();
        }
      });
  };
  const handler = () => {
    options.logger.info('SIGHUP: reloading the configuration file');
    if (running) again = true;
    else run();
  };
  target.on('SIGHUP', handler);
  return () => target.off('SIGHUP', handler);
}

/** Options of the signal policy; tests shorten the timeout and replace `exit`. */
export interface ShutdownOptions {
  logger: Logger;
  /** Time the drain may take before the process is forced down; default 30 s. */
  forceAfterMs?: number;
  exit?: (code: number) => void;
  signals?: NodeJS.Signals[];
  target?: NodeJS.EventEmitter;
  /** The one line written when the drain has finished (Ctrl+C); default none. */
  stoppedLine?: string;
  /** Where that line goes; default standard output. */
  output?: { write(text: string): unknown };
}

/**
 * Installs the shutdown policy: the first signal calls `drain()` (then exits 0, or 1 when the
 * drain fails), a second signal exits 130 at once, and a drain that outlasts the timeout exits 1.
 * Returns a function that removes the handlers.
 */
export function onShutdownSignals(drain: () => Promise<void>, options: ShutdownOptions): () => void {
  const target = options.target ?? process;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const signals = options.signals ?? ['SIGINT', 'SIGTERM'];
  const forceAfterMs = options.forceAfterMs ?? 30_000;
  let draining = false;
  const handler = (signal: NodeJS.Signals) => {
    if (draining) {
      options.logger.warn({ signal }, 'second signal: exiting without waiting for the drain');
      exit(EXIT_CODES.interrupted);
      return;
    }
    draining = true;
    options.logger.info({ signal }, 'stopping: finishing in-flight work (send the signal again to force)');
    const timer = setTimeout(() => {
      options.logger.error({ timeoutMs: forceAfterMs }, 'drain timed out: exiting');
      exit(1);
    }, forceAfterMs);
    timer.unref();
    drain().then(
      () => {
        clearTimeout(timer);
        if (options.stoppedLine) (options.output ?? process.stdout).write(`${options.stoppedLine}\n`);
        exit(0);
      },
      (error: unknown) => {
        clearTimeout(timer);
        options.logger.error({ err: error }, 'stopping failed');
        exit(1);
      },
    );
  };
  for (const signal of signals) target.on(signal, handler);
  return () => {
    for (const signal of signals) target.off(signal, handler);
  };
}

/** Parses `host:port` (`[::1]:0` for IPv6; port 0 picks a free port). */
export function parseListenAddress(value: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(value.trim());
  const port = match ? Number(match[3]) : Number.NaN;
  if (!match || port > 65535) {
    throw new CliError(`--listen: expected host:port with a port from 0 to 65535, got "${value}"`);
  }
  return { host: match[1] ?? (match[2] || '127.0.0.1'), port };
}

/** Parses a whole number option within bounds, naming the option when it is not one. */
export function parseIntegerOption(name: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^-?\d+$/.test(value.trim()) || n < min || n > max) {
    throw new CliError(`${name}: expected a whole number from ${min} to ${max}, got "${value}"`);
  }
  return n;
}
