/**
 * The root logger: pino, JSON lines by default, pretty when writing to a terminal. Every line
 * passes through the Redactor (log/redaction.ts). Parts take a Logger in their constructor and
 * make scoped children: `logger.child({ printer: name })`, `{ job: id }`, `{ reader: uri }`.
 */
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { Redactor } from './redaction.js';

export type { Logger } from 'pino';

export interface LoggerSettings {
  /** pino level name; default info, or PRINTRELAY_LOG_LEVEL. */
  level?: string;
  /** Pretty output; default: when stdout is a TTY. Ignored when `destination` is given. */
  pretty?: boolean;
  /** Where lines go (tests pass a capture stream); default stdout. */
  destination?: DestinationStream;
  /** Shared redactor: the composition root passes the same one to parts that register run-time
   * secrets (configured passwords, card numbers); one is made when omitted. */
  redactor?: Redactor;
  /** Fields on every line. */
  base?: Record<string, unknown>;
}

/**
 * Whether human-facing output may use colour: not when NO_COLOR is set to anything but the
 * empty string (https://no-color.org). Pure.
 */
export function colourAllowed(env: Record<string, string | undefined> = process.env): boolean {
  return !env.NO_COLOR;
}

/** The options of the pretty transport: colour unless NO_COLOR says otherwise. Pure. */
export function prettyOptions(env: Record<string, string | undefined> = process.env) {
  return { colorize: colourAllowed(env), translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,app' };
}

/** Creates a root logger that redacts secrets. The caller owns the destination stream. */
export function createLogger(settings: LoggerSettings = {}): Logger {
  const redactor = settings.redactor ?? new Redactor();
  const options: LoggerOptions = {
    level: settings.level ?? process.env.PRINTRELAY_LOG_LEVEL ?? 'info',
    base: settings.base ?? { app: 'printrelay' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: {
      level: (label) => ({ level: label }),
      log: (object) => redactor.scrub(object) as Record<string, unknown>,
    },
    serializers: { err: (e: unknown) => redactor.scrub(e) },
    hooks: {
      logMethod(args, method) {
        const scrubbed = args.map((a) => (typeof a === 'string' ? redactor.scrubString(a) : a));
        method.apply(this, scrubbed as Parameters<typeof method>);
      },
    },
  };
  let logger: Logger;
  if (settings.destination) {
    logger = pino(options, settings.destination);
  } else if (settings.pretty ?? process.stdout.isTTY) {
    logger = pino({
      ...options,
      transport: {
        target: 'pino-pretty',
        options: prettyOptions(),
      },
    });
  } else {
    logger = pino(options);
  }
  return logger;
}

/** A logger that writes nothing; for unit tests and library use. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
