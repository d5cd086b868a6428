/**
 * The exit codes of the printrelay command, one table for the code and the documentation
 * (docs/operations.md, "Exit codes"; a test holds the two together).
 */
import { EXIT_DATABASE_UNREADABLE } from '../lib/database-unreadable.js';

/** Every exit code the command uses, by meaning. */
export const EXIT_CODES = {
  /** Done; `status`: the agent is ready. */
  ok: 0,
  /** A failure the message on standard error names, bad command-line usage included. */
  failure: 1,
  /** `status`: the agent answers but is not ready. */
  notReady: 2,
  /** `service status --json`: the agent's service does not run (as systemctl status, LSB). */
  serviceNotRunning: 3,
  /** An unusable database file; service managers are told not to restart on it. */
  databaseUnreadable: EXIT_DATABASE_UNREADABLE,
  /** Interrupted: a second SIGINT/SIGTERM during a drain, or a cancelled pairing. */
  interrupted: 130,
} as const;
