/**
 * What a running agent says about itself on /status (and `printrelay status`), and the rule that
 * turns it into readiness (/readyz). The shape is the JSON contract of the control API: fields are
 * added, never renamed. Pure, except the two small recorders that keep the last outcomes.
 */

/** One printer as the agent serves it. */
export interface PrinterStatus {
  name: string;
  uri: string;
  cloudId: string;
  /** idle, processing, stopped (the printer says so) or unreachable (no answer at the last sync). */
  state: string;
}

/** One job not yet final. */
export interface JobInFlight {
  id: string;
  printer: string;
  state: string;
  attempts: number;
  ageS: number;
  lastError?: string;
  /**
   * `document`: a `spooled` job whose document (lost in a restart) could not be fetched again; it
   * waits out of its printer's line for its next try, `lastError` saying why the last one failed.
   */
  waitingFor?: 'document';
  /** With `waitingFor`: the failed tries in a row to fetch it again (counted across restarts; older agents: absent). */
  documentTries?: number;
  /** With `waitingFor`: seconds until the next try (0: due now; older agents: absent). */
  nextTryInS?: number;
}

/** One release station and its reader. */
export interface ReaderStatus {
  station: string;
  reader: string;
  printer: string;
  state: string;
  problem?: string;
  swipes: number;
}

/** One remembered error (no secrets: every text passed through the redactor). */
export interface RecentError {
  at: string;
  part: string;
  message: string;
}

/** The whole /status document. */
export interface AgentStatus {
  version: string;
  pid: number;
  /** The agent's data directory (absolute), so a client can tell which agent answered (older agents: absent). */
  dataDir?: string;
  /** This start's token (also in the data directory's lock file). */
  instance?: string;
  startedAt: string;
  uptimeS: number;
  cloud: {
    url: string;
    channel: 'websocket' | 'poll';
    /** The channel WebSocket is up. */
    connected: boolean;
    /** The last request reached the cloud (a network error or 5xx says no). */
    reachable: boolean;
    lastContactAt?: string;
    lastError?: string;
  };
  connector: { registered: boolean; id?: string };
  token: { valid: boolean; expiresAt?: string; problem?: string };
  printers: PrinterStatus[];
  jobs: { inFlight: number; list: JobInFlight[] };
  outbox: { depth: number; oldestAgeS: number };
  readers: ReaderStatus[];
  lastErrors: RecentError[];
}

/** Readiness with the reasons it is not ready. */
export interface Readiness {
  ready: boolean;
  reasons: string[];
  checks: { registered: boolean; tokenValid: boolean; cloudReachable: boolean };
  printers: { name: string; state: string }[];
}

/**
 * Ready when the connector is registered, the token is valid and the cloud reachable. Printer
 * states are reported, and an unreachable printer is a reason, but only all of them being
 * unreachable makes the agent not ready (one broken printer must not take the agent out of a
 * load balancer or a watchdog). Pure.
 */
export function readiness(status: AgentStatus): Readiness {
  const reasons: string[] = [];
  const registered = status.connector.registered;
  const tokenValid = status.token.valid;
  const cloudReachable = status.cloud.reachable;
  if (!registered) reasons.push('the connector is not registered with the cloud yet');
  if (!tokenValid) reasons.push(`the access token is not valid${suffix(status.token.problem)}`);
  if (!cloudReachable) reasons.push(`the cloud is not reachable${suffix(status.cloud.lastError)}`);
  const down = status.printers.filter((p) => p.state === 'unreachable');
  for (const p of down) reasons.push(`printer ${p.name} is unreachable`);
  const allDown = status.printers.length > 0 && down.length === status.printers.length;
  return {
    ready: registered && tokenValid && cloudReachable && !allDown,
    reasons,
    checks: { registered, tokenValid, cloudReachable },
    printers: status.printers.map((p) => ({ name: p.name, state: p.state })),
  };
}

function suffix(text: string | undefined): string {
  return text ? `: ${text}` : '';
}

/** The last outcomes of cloud requests. */
export class CloudContact {
  private lastOkAt: number | undefined;
  private lastFailure: { at: number; message: string } | undefined;

  /** A request got an answer. */
  ok(at: number): void {
    this.lastOkAt = at;
  }

  /** A request failed to reach the cloud (network, timeout, 5xx). */
  failed(at: number, message: string): void {
    this.lastFailure = { at, message };
  }

  /** Reachable when the latest outcome is an answer. */
  get reachable(): boolean {
    if (this.lastOkAt === undefined) return false;
    return !this.lastFailure || this.lastFailure.at <= this.lastOkAt;
  }

  get lastContactAt(): number | undefined {
    return this.lastOkAt;
  }

  /** The latest failure when it is newer than the latest answer. */
  get lastError(): string | undefined {
    return this.reachable ? undefined : this.lastFailure?.message;
  }
}

/** The last `limit` errors, newest last. */
export class RecentErrors {
  private readonly items: RecentError[] = [];

  constructor(private readonly limit = 10) {}

  add(at: number, part: string, message: string): void {
    this.items.push({ at: new Date(at).toISOString(), part, message });
    if (this.items.length > this.limit) this.items.shift();
  }

  list(): RecentError[] {
    return [...this.items];
  }
}
