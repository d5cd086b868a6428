/**
 * Delivers recorded copy jobs from the shared outbox to the pull service: for each record whose
 * head operation is due, local-job-plan.ts decides the one request that brings the cloud up to
 * date (CreateLocalJob, Pending or single-request, or UpdateLocalJob with the changed
 * parameters); once it is acknowledged, the record's delivered state and the removal of the
 * operations it covered are written in one transaction. A failed request leaves every operation
 * in place and schedules the record's next try with jittered backoff (the outbox's policy): a
 * record is never dropped. start() runs the loop, notify() wakes it, stop() ends it.
 */
import type { Clock } from '../../lib/clock.js';
import { errorMessage } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type { CreateLocalJobParams, UpdateLocalJobParams } from '../../protocol/tpfm-local-job.js';
import type { AgentDatabase } from '../../store/agent-db.js';
import type { LocalJobOp, LocalJobRecord, LocalJobStore } from '../../store/local-job-store.js';
import type { Outbox, OutboxRecordRow } from '../../store/outbox.js';
import { type LocalJobPlan, planDelivery } from './local-job-plan.js';

/** X-FMP-Return of UpdateLocalJob for a job that is final, closed or unknown. */
export const LOCAL_JOB_NOT_UPDATABLE = 13;

/** How local-job requests reach the pull service of a station (TpfmClient per station). */
export interface LocalJobTransport {
  /** CreateLocalJob as the card holder; resolves with X-FMP-JobId. */
  create(
    station: string,
    user: string,
    params: CreateLocalJobParams,
    idempotencyKey: string,
  ): Promise<string>;
  /** UpdateLocalJob as the card holder. */
  update(station: string, user: string, params: UpdateLocalJobParams): Promise<void>;
}

/** What the sender is built from. */
export interface LocalJobSenderDeps {
  db: AgentDatabase;
  outbox: Outbox;
  store: LocalJobStore;
  transport: LocalJobTransport;
  clock: Clock;
  logger: Logger;
  /** Longest sleep between rounds when nothing is due; default 5 s. */
  idleMs?: number;
}

/** See the file comment. */
export class LocalJobSender {
  private controller = new AbortController();
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly deps: LocalJobSenderDeps) {}

  /** Starts delivering in the background. */
  start(): void {
    this.controller = new AbortController();
    this.loop = this.run(this.controller.signal);
  }

  /** Wakes the loop: an operation was queued. */
  notify(): void {
    this.wake?.();
  }

  /** Stops the loop; undelivered operations stay queued for the next start. */
  async stop(): Promise<void> {
    this.controller.abort();
    this.wake?.();
    await this.loop;
    this.loop = undefined;
  }

  /** Sends one request for every record due now, repeating while requests succeed; returns how many succeeded. */
  async flush(signal: AbortSignal = this.controller.signal): Promise<number> {
    let sent = 0;
    for (;;) {
      let progressed = 0;
      for (const key of this.deps.outbox.dueKeys('local-job')) {
        if (signal.aborted) return sent;
        if (await this.deliver(key)) progressed++;
      }
      sent += progressed;
      if (progressed === 0) return sent;
    }
  }

  /** One request for one record; true when the cloud acknowledged it (or nothing was needed). */
  private async deliver(key: string): Promise<boolean> {
    const { outbox, store, clock } = this.deps;
    const rows = outbox.rowsOf(key);
    const head = rows[0];
    const record = store.get(key);
    if (!head) return false;
    if (!record) {
      outbox.failed(head.id, `copy job ${key} is missing from the store`);
      return false;
    }
    const plan = planDelivery(
      record,
      rows.map((r) => r.body as LocalJobOp),
      clock.now(),
    );
    if (plan.kind === 'wait') {
      outbox.failed(head.id, plan.reason);
      return false;
    }
    try {
      const cloudJobId = await this.send(record, plan, head);
      this.acknowledge(record, plan, rows, cloudJobId);
      return true;
    } catch (error) {
      return this.onFailure(record, plan, head, error);
    }
  }

  /** Sends the planned request; resolves with the cloud's job id for the record. */
  private async send(
    record: LocalJobRecord,
    plan: LocalJobPlan,
    head: OutboxRecordRow,
  ): Promise<string | undefined> {
    const { transport } = this.deps;
    if (plan.kind === 'none' || plan.kind === 'wait') return record.cloudJobId;
    const params = { ...plan.params, ...(plan.status ? { Status: plan.status } : {}) };
    if (plan.kind === 'create') {
      const create: CreateLocalJobParams = { Printer: record.printer, Type: 'Copy', ...params };
      return transport.create(record.station, record.userId, create, head.rowId);
    }
    if (plan.status) this.deps.store.finalSending(record.recordId);
    await transport.update(record.station, record.userId, { JobId: record.cloudJobId as string, ...params });
    return record.cloudJobId;
  }

  private acknowledge(
    record: LocalJobRecord,
    plan: LocalJobPlan,
    rows: OutboxRecordRow[],
    cloudJobId: string | undefined,
  ): void {
    if (plan.kind === 'wait') return;
    const { db, outbox, store, logger } = this.deps;
    db.transaction(() => {
      if (plan.kind !== 'none' && cloudJobId) {
        store.delivered(record.recordId, {
          cloudJobId,
          delivered: plan.delivered,
          deliveredStatus: plan.status ?? 'Pending',
          tracking: record.tracking === 'single' ? 'single' : plan.tracking,
        });
      }
      outbox.deliveredMany(rows.slice(0, plan.consumes).map((r) => r.id));
    })();
    if (plan.kind !== 'none') {
      logger.info(
        {
          record: record.recordId,
          request: plan.kind,
          tracking: plan.tracking,
          status: plan.status ?? 'Pending',
        },
        'copy job delivered',
      );
    }
  }

  /**
   * A refused or unsent request. UpdateLocalJob answered 13 means the cloud no longer takes
   * updates: when this was a resend of the final Status (an earlier try, recorded before it left,
   * may have landed and its answer been lost, also across a crash) it is done; otherwise the
   * cloud closed the Pending job and the next try sends the rest as a continuation. Anything
   * else waits for the next try.
   */
  private onFailure(
    record: LocalJobRecord,
    plan: LocalJobPlan,
    head: OutboxRecordRow,
    error: unknown,
  ): boolean {
    const { outbox, store, logger } = this.deps;
    const code = (error as { returnCode?: number }).returnCode;
    if (plan.kind === 'update' && code === LOCAL_JOB_NOT_UPDATABLE) {
      if (plan.status && record.finalSentAt !== undefined) {
        this.acknowledge(record, plan, outbox.rowsOf(record.recordId), record.cloudJobId);
        return true;
      }
      store.closedAtCloud(record.recordId);
    }
    const reason = errorMessage(error);
    outbox.failed(head.id, reason);
    logger.warn({ record: record.recordId, request: plan.kind, error: reason }, 'copy job delivery failed');
    return false;
  }

  private async run(signal: AbortSignal): Promise<void> {
    const { outbox, clock, logger } = this.deps;
    while (!signal.aborted) {
      try {
        await this.flush(signal);
      } catch (error) {
        logger.error({ error: errorMessage(error) }, 'copy job delivery round failed');
      }
      const next = outbox.nextDueAt('local-job');
      const idle = this.deps.idleMs ?? 5000;
      await this.pause(next === undefined ? idle : Math.max(0, Math.min(idle, next - clock.now())), signal);
    }
  }

  private pause(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      this.wake = done;
    });
  }
}
