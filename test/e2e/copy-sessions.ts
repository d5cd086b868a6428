/**
 * Copy sessions at the fault rig's copy station, driven as a person and a device app would: a
 * card swipe, copy runs posted to the agent's copy-events endpoint with the device secret, the
 * card removed. Each step waits until the agent delivered what it stored (its outbox holds no
 * copy-job operation) or died, so a kill never lands while a post is unanswered: every run the
 * endpoint answered 202 is stored, and every session's expected local job is known exactly. The
 * cloud's copy (the emulator's local_jobs) is read for the comparison. With `mergeLastRuns`, the
 * second run's UpdateLocalJob is held at the cloud proxy until the third run and the card removal
 * are queued behind it, so they go to the cloud as one UpdateLocalJob: pages and final Status.
 */
import { join } from 'node:path';
import { openSqlite } from '../../src/lib/sqlite.js';
import { sendSwipe } from '../../src/cardreader/socket/socket-reader.js';
import { DEMO } from '../../src/config/load-config.js';
import { sleep } from '../../src/lib/abort.js';
import type { LocalJobFields } from '../../src/protocol/tpfm-local-job.js';
import type { CliProcess } from '../integration/cli-process.js';
import type { CopyStation, FaultRig } from './fault-rig.js';

/** One copy run as the device app posts it. */
export interface CopyRun {
  pages: number;
  color_pages: number;
  copies: number;
  duplex: boolean;
}

/** A driven session: the runs the agent answered 202, and whether the card was removed. */
export interface DrivenSession {
  runs: CopyRun[];
  removed: boolean;
}

/** A local job as the emulator stores it. */
export interface CloudLocalJob {
  state: string;
  fields: LocalJobFields;
}

const RUNS_PER_SESSION = 3;
/** The copy-job requests of the agent on the wire. */
const LOCAL_JOB_REQUEST = /^GET \/TPFM\/\?Cmd=(Create|Update)LocalJob/;

/** The n-th run of the s-th session: pages, colour, copies and duplex vary. */
function runOf(s: number, n: number): CopyRun {
  return {
    pages: 1 + ((s * 3 + n) % 4),
    color_pages: (s + n) % 2,
    copies: 1 + ((s + n) % 3),
    duplex: n === 1,
  };
}

/** The local job fields a session's counted runs make (copy-counting.ts, device-app source). */
export function expectedFields(runs: readonly CopyRun[]): LocalJobFields {
  const sheets = (r: CopyRun) => (r.duplex ? Math.ceil(r.pages / 2) : r.pages);
  const sum = (f: (r: CopyRun) => number) => runs.reduce((total, r) => total + f(r), 0);
  const color = sum((r) => r.color_pages);
  return {
    Copies: (runs.at(-1) as CopyRun).copies,
    PaperId: 9,
    TotalPrintedPages: sum((r) => r.pages),
    TotalPrintedColorPages: color,
    Color: color > 0 ? 1 : 0,
    TotalPrintedSheets: sum(sheets),
    Duplex: runs.some((r) => r.duplex) ? 1 : 0,
  };
}

/** The emulator's local jobs in the order they were created. */
export function cloudLocalJobs(rig: FaultRig): CloudLocalJob[] {
  const db = openSqlite(join(rig.dir, 'emulator.db'), { readonly: true });
  try {
    const rows = db.prepare('SELECT state, fields_json FROM local_jobs ORDER BY created_at, rowid').all() as {
      state: string;
      fields_json: string;
    }[];
    return rows.map((r) => ({ state: r.state, fields: JSON.parse(r.fields_json) as LocalJobFields }));
  } finally {
    db.close();
  }
}

/** The agent's copy-job records, oldest first: final state, and what the cloud acknowledged. */
export function agentCopyRecords(rig: FaultRig) {
  const db = openSqlite(join(rig.agentDataDir, 'agent.db'), { readonly: true, fileMustExist: true });
  try {
    const rows = db
      .prepare(
        'SELECT status, delivered_status, fields_json, delivered_json FROM local_jobs ORDER BY started_at, rowid',
      )
      .all() as { status: string; delivered_status: string; fields_json: string; delivered_json: string }[];
    return rows.map((r) => ({
      status: r.status,
      deliveredStatus: r.delivered_status,
      fields: JSON.parse(r.fields_json) as LocalJobFields,
      delivered: JSON.parse(r.delivered_json) as LocalJobFields,
    }));
  } finally {
    db.close();
  }
}

/** Copy-job operations the agent has not delivered yet (its outbox, read beside it). */
export function undeliveredCopyOps(rig: FaultRig): number {
  const db = openSqlite(join(rig.agentDataDir, 'agent.db'), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare("SELECT COUNT(*) AS n FROM outbox WHERE kind = 'local-job'").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** See the file comment. */
export class CopySessions {
  readonly sessions: DrivenSession[] = [];
  private readonly station: CopyStation;

  constructor(private readonly rig: FaultRig) {
    if (!rig.copyStation) throw new Error('the fault rig was started without its copy station');
    this.station = rig.copyStation;
  }

  /** Runs whole sessions on `agent` until it exits, or `limit` sessions ended. */
  async run(
    agent: CliProcess,
    limit = Number.POSITIVE_INFINITY,
    options: { mergeLastRuns?: boolean } = {},
  ): Promise<void> {
    let gone = false;
    void agent.exited.then(() => {
      gone = true;
    });
    const alive = () => !gone;
    for (let done = 0; done < limit && alive(); done++) {
      const session: DrivenSession = { runs: [], removed: false };
      if (!(await this.swipe(DEMO.user.card, alive))) return;
      this.sessions.push(session);
      const merge = options.mergeLastRuns === true;
      for (let n = 0; n < RUNS_PER_SESSION; n++) {
        const run = runOf(this.sessions.length - 1, n);
        if (merge && n === 1) this.rig.cloudProxy.hold(LOCAL_JOB_REQUEST);
        if (!(await this.post(run, alive))) return this.rig.cloudProxy.release();
        session.runs.push(run);
        // The last run goes out with the card removal right behind it, as people do.
        if (n < RUNS_PER_SESSION - 1 && !(merge && n === 1) && !(await this.settled(alive))) return;
      }
      if (!(await this.swipe('remove', alive))) return this.rig.cloudProxy.release();
      session.removed = true;
      // Held: the second run's update in flight, the third run's and the final Status queued.
      if (merge) {
        while (alive() && undeliveredCopyOps(this.rig) < 3) await sleep(20);
        this.rig.cloudProxy.release();
      }
      if (!(await this.settled(alive))) return;
    }
  }

  /** Sessions that counted at least one run: each must be one local job at the cloud. */
  counted(): DrivenSession[] {
    return this.sessions.filter((s) => s.runs.length > 0);
  }

  /** A swipe line at the reader; retried while the agent starts its reader. False: the agent died. */
  private async swipe(line: string, alive: () => boolean): Promise<boolean> {
    while (alive()) {
      try {
        await sendSwipe(this.station.readerUri, line);
        return true;
      } catch {
        await sleep(50);
      }
    }
    return false;
  }

  /** One run; retried on 409 (the session is still starting). True once answered 202. */
  private async post(run: CopyRun, alive: () => boolean): Promise<boolean> {
    const url = `${this.station.eventsUrl}/copy-events/${encodeURIComponent(this.station.name)}`;
    while (alive()) {
      let status: number;
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: { authorization: `Bearer ${this.station.secret}`, 'content-type': 'application/json' },
          body: JSON.stringify(run),
        });
        status = response.status;
        await response.arrayBuffer();
      } catch {
        // Refused or cut: the agent is starting or being killed (alive() tells).
        await sleep(50);
        continue;
      }
      if (status === 202) return true;
      if (status !== 409) throw new Error(`copy event answered ${status}`);
      await sleep(20);
    }
    return false;
  }

  /** Waits until the agent delivered every copy-job operation (true) or died (false). */
  private async settled(alive: () => boolean): Promise<boolean> {
    while (alive()) {
      if (undeliveredCopyOps(this.rig) === 0) return alive();
      await sleep(20);
    }
    return false;
  }
}
