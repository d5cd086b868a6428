/**
 * What the agent tells the service manager that runs it (systemd's sd_notify protocol on
 * Linux): ready, a one-line status, stopping, and the watchdog keep-alive. The agent uses this
 * interface (as it uses printing/'s PrinterBackend); sd-notify.ts implements it, and outside a
 * service nothing listens.
 */

/** The agent's side of the service manager. */
export interface ServiceNotifier {
  /** Start-up is over: the service is up (`READY=1`), with a status line. */
  ready(status: string): void;
  /** A status line for `systemctl status` (`STATUS=`). */
  status(status: string): void;
  /** The agent is draining before exit (`STOPPING=1`). */
  stopping(status: string): void;
  /** The keep-alive (`WATCHDOG=1`); the manager restarts a service that stops sending it. */
  watchdog(): void;
  /** How often the manager wants watchdog(), in ms; undefined when it watches nothing. */
  readonly watchdogIntervalMs: number | undefined;
}

/** A notifier for a process no service manager watches: every call does nothing. */
export const absentServiceManager: ServiceNotifier = {
  ready: () => {},
  status: () => {},
  stopping: () => {},
  watchdog: () => {},
  watchdogIntervalMs: undefined,
};

/**
 * Calls `notifier.watchdog()` at its interval (nothing when it has none) until the returned
 * function is called. The timer does not keep the process alive.
 */
export function startHeartbeat(notifier: ServiceNotifier): () => void {
  const every = notifier.watchdogIntervalMs;
  if (every === undefined) return () => {};
  notifier.watchdog();
  const timer = setInterval(() => notifier.watchdog(), every);
  timer.unref();
  return () => clearInterval(timer);
}
