/**
 * The slots of document downloads: at most `maxActive` bodies written at once, at most
 * `maxActivePerTenant` of them for one organization. A download beyond a cap waits in line for a
 * slot, at most `maxWaitMs`; the line is bounded too (`maxWaitingPerTenant` per organization,
 * `maxWaiting` together), and a download that finds it full, or whose wait ran out, is refused
 * with 503 `downloads_busy` and a Retry-After (the message names the rule). A freed slot goes to
 * the oldest waiting download whose organization is under its own cap, so one organization's many
 * or slow downloads never hold up another's: they wait for their own slots only. A waiting
 * download whose client hung up leaves the line. Holders give their slot back with the function
 * acquire() resolved to; nothing to start or stop.
 */
import { HttpError } from './http-errors.js';

/** The caps (see the file comment); every field has a default (DEFAULT_DOWNLOAD_LIMITS). */
export interface DownloadLimits {
  /** Document bodies written at once, every organization together. */
  maxActive: number;
  /** Document bodies written at once for one organization. */
  maxActivePerTenant: number;
  /** Downloads waiting for a slot, every organization together. */
  maxWaiting: number;
  /** Downloads waiting for a slot for one organization. */
  maxWaitingPerTenant: number;
  /** Longest wait for a slot, in milliseconds (0: refused at once when no slot is free). */
  maxWaitMs: number;
  /** Seconds a refused client is told to wait (Retry-After). */
  retryAfterS: number;
}

/** 32 bodies at once (64 MiB of buffers), 8 per organization; 10 s in a line of 256 (32 each). */
export const DEFAULT_DOWNLOAD_LIMITS: DownloadLimits = {
  maxActive: 32,
  maxActivePerTenant: 8,
  maxWaiting: 256,
  maxWaitingPerTenant: 32,
  maxWaitMs: 10_000,
  retryAfterS: 2,
};

/** Gives a slot back; calling it again does nothing. */
export type ReleaseSlot = () => void;

interface Waiter {
  tenant: string;
  grant: (release: ReleaseSlot) => void;
  refuse: (error: HttpError) => void;
}

/** The download slots of one emulator. */
export class DownloadGate {
  readonly limits: DownloadLimits;
  private total = 0;
  private readonly perTenant = new Map<string, number>();
  private readonly line: Waiter[] = [];

  constructor(limits: Partial<DownloadLimits> = {}) {
    this.limits = checkLimits({ ...DEFAULT_DOWNLOAD_LIMITS, ...limits });
  }

  /**
   * A slot for a download of `tenant`: at once when one is free, else after waiting in line.
   * Rejects with a 503 HttpError when the line is full or the wait ran out, and with `gone`'s
   * reason when `gone` aborts first (the client hung up).
   */
  acquire(tenant: string, gone: AbortSignal): Promise<ReleaseSlot> {
    if (gone.aborted) return Promise.reject(gone.reason);
    // Every waiter lacks room (wakeNext ran): a download with room passes none of them.
    if (this.hasRoom(tenant)) return Promise.resolve(this.take(tenant));
    const { maxWaiting, maxWaitingPerTenant, maxWaitMs } = this.limits;
    if (maxWaitMs === 0) return Promise.reject(this.busy(tenant, 'no slot is free and waiting is off'));
    if (this.line.length >= maxWaiting)
      return Promise.reject(this.busy(tenant, `${maxWaiting} downloads wait already (downloads.maxWaiting)`));
    if (this.waitingFor(tenant) >= maxWaitingPerTenant)
      return Promise.reject(
        this.busy(
          tenant,
          `${maxWaitingPerTenant} downloads of this organization wait already (downloads.maxWaitingPerTenant)`,
        ),
      );
    return new Promise<ReleaseSlot>((resolve, reject) => {
      const leave = () => {
        clearTimeout(timer);
        gone.removeEventListener('abort', onGone);
        const at = this.line.indexOf(waiter);
        if (at >= 0) this.line.splice(at, 1);
      };
      const waiter: Waiter = {
        tenant,
        grant: (release) => {
          leave();
          resolve(release);
        },
        refuse: (error) => {
          leave();
          reject(error);
        },
      };
      const onGone = () => waiter.refuse(gone.reason);
      const timer = setTimeout(
        () =>
          waiter.refuse(this.busy(tenant, `no slot was free within ${maxWaitMs} ms (downloads.maxWaitMs)`)),
        maxWaitMs,
      );
      gone.addEventListener('abort', onGone, { once: true });
      this.line.push(waiter);
    });
  }

  /** Bodies being written now, all or for one organization. */
  active(tenant?: string): number {
    return tenant === undefined ? this.total : (this.perTenant.get(tenant) ?? 0);
  }

  /** Downloads waiting for a slot, all or for one organization. */
  waiting(tenant?: string): number {
    return tenant === undefined ? this.line.length : this.waitingFor(tenant);
  }

  private hasRoom(tenant: string): boolean {
    return this.total < this.limits.maxActive && this.active(tenant) < this.limits.maxActivePerTenant;
  }

  private waitingFor(tenant: string): number {
    return this.line.reduce((n, waiter) => n + (waiter.tenant === tenant ? 1 : 0), 0);
  }

  private take(tenant: string): ReleaseSlot {
    this.total += 1;
    this.perTenant.set(tenant, this.active(tenant) + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.total -= 1;
      const left = this.active(tenant) - 1;
      if (left === 0) this.perTenant.delete(tenant);
      else this.perTenant.set(tenant, left);
      this.wakeNext();
    };
  }

  /** Hands free slots to the oldest waiters whose organization has room. */
  private wakeNext(): void {
    for (let i = 0; i < this.line.length && this.total < this.limits.maxActive; ) {
      const waiter = this.line[i] as Waiter;
      if (this.hasRoom(waiter.tenant)) waiter.grant(this.take(waiter.tenant));
      else i += 1;
    }
  }

  private busy(tenant: string, why: string): HttpError {
    const { maxActive, maxActivePerTenant, retryAfterS } = this.limits;
    const rule =
      this.active(tenant) >= maxActivePerTenant
        ? `at most ${maxActivePerTenant} document downloads at once per organization (downloads.maxActivePerTenant)`
        : `at most ${maxActive} document downloads at once (downloads.maxActive)`;
    return new HttpError(503, 'downloads_busy', `too many document downloads: ${rule}; ${why}`, {
      'retry-after': String(retryAfterS),
    });
  }
}

/** The limits, or a RangeError naming the field and its rule. */
function checkLimits(limits: DownloadLimits): DownloadLimits {
  const atLeast = (field: keyof DownloadLimits, min: number) => {
    const value = limits[field];
    if (!Number.isInteger(value) || value < min)
      throw new RangeError(`downloads.${field}: must be a whole number >= ${min} (got ${value})`);
  };
  atLeast('maxActive', 1);
  atLeast('maxActivePerTenant', 1);
  atLeast('maxWaiting', 0);
  atLeast('maxWaitingPerTenant', 0);
  atLeast('maxWaitMs', 0);
  atLeast('retryAfterS', 1);
  return limits;
}
