/**
 * systemd's notification protocol (sd_notify(3)): `KEY=VALUE` lines in one datagram to the
 * AF_UNIX socket named by `NOTIFY_SOCKET`, with the watchdog period in `WATCHDOG_USEC`.
 *
 * Why the unix-dgram package: Node has no unix datagram sockets of its own. unix-dgram is a
 * small, long-lived addon (maintained by a Node.js core contributor, in wide use) that sends
 * each message from the agent's own pid, so the unit keeps the strict `NotifyAccess=main`.
 * The other way, spawning `systemd-notify` per message, sends from a short-lived child: the
 * unit then needs `NotifyAccess=all` and `--pid=` and a process every watchdog period, and
 * systemd may fail to attribute a message whose sender already exited. unix-dgram cannot
 * reach abstract-namespace sockets (`@name`) or vsock; systemd gives system services a path
 * (`/run/systemd/notify`), and anything else is logged and ignored.
 */
import { errorMessage } from '../lib/errors.js';
import type { Logger } from '../log/logger.js';
import type { ServiceNotifier } from './service-notifier.js';
import { absentServiceManager } from './service-notifier.js';

/** What the environment says about the service manager. */
export interface NotifySettings {
  /** The socket path, when there is one we can reach. */
  socketPath?: string;
  /** How often to send WATCHDOG=1 (half the manager's timeout), when the watchdog is on for us. */
  watchdogIntervalMs?: number;
  /** Why NOTIFY_SOCKET is set but unusable. */
  problem?: string;
}

/** Reads NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID for the process `pid`. Pure. */
export function notifySettings(env: NodeJS.ProcessEnv, pid: number): NotifySettings {
  const socket = env.NOTIFY_SOCKET;
  if (!socket) return {};
  if (!socket.startsWith('/')) {
    return {
      problem: `NOTIFY_SOCKET=${socket}: only socket paths are supported (no abstract or vsock addresses)`,
    };
  }
  const settings: NotifySettings = { socketPath: socket };
  const usec = Number(env.WATCHDOG_USEC);
  const forUs = env.WATCHDOG_PID === undefined || Number(env.WATCHDOG_PID) === pid;
  if (Number.isFinite(usec) && usec > 0 && forUs) {
    settings.watchdogIntervalMs = Math.max(1, Math.floor(usec / 2000));
  }
  return settings;
}

/** One notification datagram: `KEY=VALUE` lines; values are made single-line. Pure. */
export function notifyMessage(fields: Record<string, string>): string {
  return Object.entries(fields)
    .map(([key, value]) => `${key}=${value.replace(/[\r\n]+/g, ' ')}\n`)
    .join('');
}

/** The datagram socket a notifier sends with; unix-dgram's socket in production. */
export interface DatagramSender {
  send(buf: Buffer, offset: number, length: number, path: string, callback?: (error?: Error) => void): void;
  close(): void;
}

/** Sends notifications to systemd; close() closes the socket. */
export class SdNotifier implements ServiceNotifier {
  private failures = 0;

  constructor(
    private readonly sender: DatagramSender,
    private readonly socketPath: string,
    readonly watchdogIntervalMs: number | undefined,
    private readonly logger: Logger,
  ) {}

  ready(status: string): void {
    this.send({ READY: '1', STATUS: status });
  }

  status(status: string): void {
    this.send({ STATUS: status });
  }

  stopping(status: string): void {
    this.send({ STOPPING: '1', STATUS: status });
  }

  watchdog(): void {
    this.send({ WATCHDOG: '1' });
  }

  close(): void {
    this.sender.close();
  }

  /** Sends without blocking; failures are logged (the first, then every 100th), never thrown. */
  private send(fields: Record<string, string>): void {
    const buf = Buffer.from(notifyMessage(fields));
    this.sender.send(buf, 0, buf.length, this.socketPath, (error) => {
      if (!error) return;
      if (this.failures++ % 100 === 0) {
        this.logger.warn(
          { socket: this.socketPath, error: errorMessage(error), failures: this.failures },
          'could not notify the service manager',
        );
      }
    });
  }
}

/**
 * The notifier for this process: an SdNotifier when NOTIFY_SOCKET names a socket path, else
 * one that does nothing. Loads the native unix-dgram module only when there is a socket, and
 * removes NOTIFY_SOCKET from the environment so child processes do not inherit it.
 */
export async function connectServiceManager(
  env: NodeJS.ProcessEnv,
  logger: Logger,
): Promise<ServiceNotifier & { close(): void }> {
  const settings = notifySettings(env, process.pid);
  delete env.NOTIFY_SOCKET;
  if (settings.problem) logger.warn(settings.problem);
  if (!settings.socketPath) return { ...absentServiceManager, close: () => {} };
  const { createSocket } = await import('unix-dgram');
  const socket = createSocket('unix_dgram');
  socket.on('error', (error: Error) => logger.warn({ error: errorMessage(error) }, 'notify socket error'));
  return new SdNotifier(socket, settings.socketPath, settings.watchdogIntervalMs, logger);
}
