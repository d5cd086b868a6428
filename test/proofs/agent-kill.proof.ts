/**
 * Proof under faults: the agent, a real `printrelay agent` process, is SIGKILLed at KILLS exact
 * points while it works through JOBS jobs, and started again on the same data directory each
 * time. The kill points come from fault proxies on the wire, in turn:
 *   download          the document half-way down (a partial spool file is left)
 *   ipp-send          Print-Job half-way up to the printer (FAULT_MID_SEND=1, see POINTS)
 *   printer-accepted  the printer accepted the job, the agent never saw the answer
 *   event-send        the cloud stored an event batch, the agent never saw the answer
 * Afterwards every job has a final Status, printed exactly once at ippeveprinter (its kept
 * spool files), none lost. FAULT_JOBS / FAULT_KILLS size the run: 48 jobs / 9 kills by default (well under a minute on
 * a quiet machine); the full proof is FAULT_JOBS=200 FAULT_KILLS=20.
 *
 * Run with `npm run proofs` (vitest.proofs.config.ts), not in `npm test`: a kill that
 * lands while another job's Print-Job is on the wire leaves ippeveprinter (which prints cut
 * documents) a partial copy, which the agent watches and never resends: 1 job of 48 ended as a
 * partial copy in two of three runs on this machine (0 printed twice). Open in issue 15 (Create-Job + Send-Document would
 * keep a cut document from printing).
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliProcess } from '../integration/cli-process.js';
import type { Trigger } from '../support/fault-proxy.js';
import { peersAvailable } from '../support/peers.js';
import {
  type FaultRig,
  finalStatuses,
  printerIdOf,
  printsPerJob,
  startAgentProcess,
  startFaultRig,
  submitJobs,
} from '../e2e/fault-rig.js';

const JOBS = Number(process.env.FAULT_JOBS ?? 48);
const KILLS = Number(process.env.FAULT_KILLS ?? 9);
const DOCUMENT_BYTES = 96 * 1024;

type KillPoint = 'download' | 'ipp-send' | 'printer-accepted' | 'event-send';
/**
 * ipp-send runs only with FAULT_MID_SEND=1: a kill in the middle of a Print-Job leaves a partial
 * copy at a printer that prints cut documents (ippeveprinter does: no Release-Job, no
 * job-k-octets). After the restart the agent finds that job by name and watches it; it never
 * sends the document again (see docs/operations.md, "Recovery").
 */
const POINTS: readonly KillPoint[] =
  process.env.FAULT_MID_SEND === '1'
    ? ['download', 'ipp-send', 'printer-accepted', 'event-send']
    : ['download', 'printer-accepted', 'event-send'];

/** The trigger of one kill point; `skip` lets that many matching exchanges through first. */
function triggerFor(point: KillPoint, skip: number, fire: () => void): Trigger {
  switch (point) {
    case 'download':
      return {
        name: point,
        request: /^GET \/connector\/v1\/jobs\/[^/ ]+\/document/,
        point: { at: 'response-partial', afterBytes: 20_000 },
        skip,
        fire,
      };
    case 'ipp-send':
      return {
        name: point,
        request: /printrelay-/,
        point: { at: 'request', afterBytes: 40_000 },
        skip,
        fire,
      };
    case 'printer-accepted':
      return { name: point, request: /printrelay-/, point: { at: 'response' }, skip, fire };
    case 'event-send':
      return { name: point, request: /^POST \/connector\/v1\/events/, point: { at: 'response' }, skip, fire };
  }
}

const enabled = peersAvailable('ippeveprinter');

/** `promise`, or a rejection with `message` after `ms`. */
async function within<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

function occurrences(text: string, phrase: string): number {
  return text.split(phrase).length - 1;
}

/** Ledger row, cloud state and log lines of jobs that did not end, for the failure message. */
function describeJobs(rig: FaultRig, jobIds: string[], logs: string): string {
  const agentDb = new Database(join(rig.agentDataDir, 'agent.db'), { readonly: true });
  const cloudDb = new Database(join(rig.dir, 'emulator.db'), { readonly: true });
  try {
    return jobIds
      .map((id) =>
        [
          id,
          JSON.stringify(
            agentDb.prepare('SELECT state, attempts, last_error FROM jobs WHERE job_id = ?').get(id),
          ),
          JSON.stringify(cloudDb.prepare('SELECT state, claimed_by FROM jobs WHERE id = ?').get(id)),
          ...logs.split('\n').filter((line) => line.includes(id)),
        ].join('\n'),
      )
      .join('\n\n');
  } finally {
    agentDb.close();
    cloudDb.close();
  }
}

describe.skipIf(!enabled)(`agent SIGKILLed ${KILLS} times during ${JOBS} jobs`, () => {
  let rig: FaultRig;
  let agent: CliProcess | undefined;

  beforeAll(async () => {
    rig = await startFaultRig();
  });

  afterAll(async () => {
    await agent?.stop();
    await rig?.close();
  });

  it('loses no job, prints none twice, and every job reaches a final Status', async () => {
    agent = await startAgentProcess(rig);
    const printerId = await printerIdOf(rig.sfapi);
    const perRound = Math.ceil(JOBS / (KILLS + 1));
    const jobIds: string[] = [];
    const kills: KillPoint[] = [];
    const outputs: string[] = [];
    for (let round = 0; round < KILLS; round++) {
      const point = POINTS[round % POINTS.length] as KillPoint;
      const dying = agent as CliProcess;
      const proxy = point === 'download' || point === 'event-send' ? rig.cloudProxy : rig.printerProxy;
      proxy.arm(triggerFor(point, round % 3, () => dying.signal('SIGKILL')));
      jobIds.push(...(await submitJobs(rig, printerId, jobIds.length, perRound, DOCUMENT_BYTES)));
      await within(dying.exited, 40_000, `kill point ${point} (round ${round}) never reached`);
      kills.push(point);
      outputs.push(dying.stdout);
      agent = await startAgentProcess(rig);
    }
    jobIds.push(...(await submitJobs(rig, printerId, jobIds.length, JOBS - jobIds.length, DOCUMENT_BYTES)));

    const statuses = await finalStatuses(rig.sfapi, jobIds, Number(process.env.FAULT_WAIT_MS ?? 120_000));
    const logs = [...outputs, agent.stdout].join('');
    const prints = printsPerJob(rig.printer.spoolDir, DOCUMENT_BYTES);
    const notDone = jobIds.filter((id) => statuses.get(id) !== 0);
    const lost = jobIds.filter((id) => (prints.get(id)?.whole ?? 0) === 0);
    const twice = jobIds.filter((id) => (prints.get(id)?.whole ?? 0) > 1);
    const partial = jobIds.filter((id) => (prints.get(id)?.partial ?? 0) > 0);
    const count = (point: KillPoint) => kills.filter((k) => k === point).length;
    const found = occurrences(logs, 'found the interrupted job at the printer');
    const absent = occurrences(logs, 'interrupted job never reached the printer');
    const cutShort = occurrences(logs, 'the printer holds only part of the interrupted document');
    console.info(
      `agent kill proof: jobs=${jobIds.length} kills=${kills.length} (${POINTS.map((p) => `${p}=${count(p)}`).join(' ')}) ` +
        `final-status-0=${jobIds.length - notDone.length} lost=${lost.length} printed-twice=${twice.length} ` +
        `reconciled at the printer: found=${found} absent-resent=${absent} partial-cancelled-resent=${cutShort} ` +
        `(printer jobs with a partial document: ${partial.length})`,
    );
    if (notDone.length > 0) console.info(describeJobs(rig, notDone, logs));
    expect(jobIds).toHaveLength(JOBS);
    expect([...rig.cloudProxy.fired, ...rig.printerProxy.fired].sort()).toEqual([...kills].sort());
    expect(notDone.map((id) => [id, statuses.get(id)])).toEqual([]);
    expect(lost).toEqual([]);
    expect(twice).toEqual([]);
    // Every Print-Job cut short left the printer a partial document (ippeveprinter prints what it
    // got), cancelled there and sent again whole; every answer the agent never saw: the job was
    // found at the printer by its name and watched. A kill at another point can also land while a
    // Print-Job is in flight, hence "at least". Partial prints come only from cut Print-Jobs.
    expect(cutShort + absent).toBeGreaterThanOrEqual(count('ipp-send'));
    expect(found).toBeGreaterThanOrEqual(count('printer-accepted'));
    expect(partial.length).toBeLessThanOrEqual(cutShort);
  }, 300_000);
});
