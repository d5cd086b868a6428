/**
 * Proof under faults: the agent, a real `printrelay agent` process, is SIGKILLed at KILLS exact
 * points while it works through JOBS jobs, and started again on the same data directory each
 * time. The kill points come from fault proxies on the wire, in turn:
 *   copy-update       the cloud stored a copy job's CreateLocalJob or UpdateLocalJob, the agent
 *                     never saw the answer; by turns (COPY_KILLS) the update carrying the last
 *                     pages and the final Status after the card was removed, the create after the
 *                     first copy run and the update after the second (both mid-session)
 *   download          the document half-way down (nothing on disk: a small document comes into
 *                     memory, and the restarted agent downloads it again whole)
 *   ipp-created       the printer answered Create-Job, the agent never saw the job id
 *   ipp-send          Send-Document half-way up to the printer
 *   printer-accepted  the printer accepted the whole document, the agent never saw the answer
 *   event-send        the cloud stored an event batch, the agent never saw the answer
 * Afterwards every job has a final Status, printed whole exactly once at ippeveprinter (its kept
 * spool files), none lost, and every copy session is one local job at the cloud with the final
 * Status and the exact counts of the runs the agent accepted. FAULT_JOBS / FAULT_KILLS size the run: 48 jobs / 9 kills in `npm
 * test` (test/e2e/agent-kill.test.ts); `npm run proofs` runs the full 200 jobs / 20 kills.
 *
 * The documents (96 KiB) are small: held in memory with no spool file, so a job the restarted
 * agent must send again (a cut Send-Document, a Create-Job whose answer it never saw, a job
 * downloaded but not yet sent) is downloaded again from the cloud first, its SHA-256 checked; the
 * proof counts those downloads and checks one per cut Send-Document at least.
 *
 * A cut Send-Document is found again by its recorded printer job id, cancelled and sent again
 * whole. ippeveprinter (CUPS 2.4) completes a job whose Send-Document connection broke with what
 * arrived (docs/ipp.md, "Two-step submission"), so each such cut also leaves one partial print
 * there; the proof counts them and checks that the agent noticed every one.
 */
import { join } from 'node:path';
import { openSqlite } from '../../src/lib/sqlite.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliProcess } from '../integration/cli-process.js';
import type { Trigger } from '../support/fault-proxy.js';
import { burnersWanted, type CpuBurners, startCpuBurners } from '../support/cpu-burners.js';
import { peersAvailable } from '../support/peers.js';
import {
  agentCopyRecords,
  CopySessions,
  cloudLocalJobs,
  expectedFields,
  undeliveredCopyOps,
} from '../e2e/copy-sessions.js';
import {
  type FaultRig,
  finalStatuses,
  printerIdOf,
  printsPerJob,
  startAgentProcess,
  startFaultRig,
  submitJobs,
  within,
} from '../e2e/fault-rig.js';

const JOBS = Number(process.env.FAULT_JOBS ?? 200);
const KILLS = Number(process.env.FAULT_KILLS ?? 20);
const DOCUMENT_BYTES = 96 * 1024;

type KillPoint = 'copy-update' | 'download' | 'ipp-created' | 'ipp-send' | 'printer-accepted' | 'event-send';
const ALL_POINTS: readonly KillPoint[] = [
  'copy-update',
  'download',
  'ipp-created',
  'ipp-send',
  'printer-accepted',
  'event-send',
];

/**
 * The connector protocols the proof runs at (FAULT_PROTOCOLS, default all three). At 2 every
 * kill point is reached. At 3 a small job's document comes inline with its offer and its claim
 * and events travel as WebSocket frames, which the fault proxy does not cut: the points on HTTP
 * exchanges the job no longer makes (`download`, `event-send`) are left out, and the simulation
 * covers the channel's own crash points (test/sim/sim-channel.ts). At 4 (the default of agent and
 * emulator) the claim carries the job's first events as well; the same points apply. The kills at
 * the printer and on /TPFM/ still land while the channel carries every job.
 */
const PROTOCOLS = (process.env.FAULT_PROTOCOLS ?? '2,3,4').split(',').map(Number);
function pointsAt(protocol: number): readonly KillPoint[] {
  return protocol >= 3 ? ALL_POINTS.filter((p) => p !== 'download' && p !== 'event-send') : ALL_POINTS;
}

/**
 * The copy-job requests a copy-update kill lands on, in turn: the UpdateLocalJob carrying the
 * session's last pages and final Status (the driver merges the last two runs and the card removal
 * into it: `merge`), its CreateLocalJob (after the first run), its first UpdateLocalJob without
 * Status (after the second run). The driver sends one run at a time, so the first match is that
 * session's.
 */
const COPY_KILLS = [
  {
    name: 'final',
    request: /^GET \/TPFM\/\?Cmd=UpdateLocalJob[^ ]*TotalPrintedPages=[^ ]*&Status=/,
    merge: true,
  },
  { name: 'create', request: /^GET \/TPFM\/\?Cmd=CreateLocalJob/, merge: false },
  { name: 'update', request: /^GET \/TPFM\/\?Cmd=UpdateLocalJob(?![^ ]*&Status=)/, merge: false },
] as const;
type CopyKill = (typeof COPY_KILLS)[number];

/** The trigger of one kill point; `skip` lets that many matching exchanges through first. */
function triggerFor(point: KillPoint, skip: number, fire: () => void, copyKill: CopyKill): Trigger {
  switch (point) {
    case 'copy-update':
      return { name: point, request: copyKill.request, point: { at: 'response' }, skip: 0, fire };
    case 'download':
      return {
        name: point,
        request: /^GET \/connector\/v1\/jobs\/[^/ ]+\/document/,
        point: { at: 'response-partial', afterBytes: 20_000 },
        skip,
        fire,
      };
    case 'ipp-created':
      // Create-Job is the request that names the job (printrelay-<id>).
      return { name: point, request: /printrelay-/, point: { at: 'response' }, skip, fire };
    case 'ipp-send':
      // Send-Document is the request that carries last-document.
      return {
        name: point,
        request: /last-document/,
        point: { at: 'request', afterBytes: 40_000 },
        skip,
        fire,
      };
    case 'printer-accepted':
      return { name: point, request: /last-document/, point: { at: 'response' }, skip, fire };
    case 'event-send':
      return { name: point, request: /^POST \/connector\/v1\/events/, point: { at: 'response' }, skip, fire };
  }
}

const enabled = peersAvailable('ippeveprinter');
/** Busy processes kept running beside the proof (FAULT_LOAD; test/support/cpu-burners.ts). */
const LOAD = burnersWanted();
const underLoad = LOAD > 0 ? ` with ${LOAD} busy processes beside it` : '';

/** The cloud's local jobs once the agent delivered every copy-job operation and `n` exist. */
async function settledLocalJobs(rig: FaultRig, n: number) {
  const deadline = Date.now() + Number(process.env.FAULT_WAIT_MS ?? 120_000);
  for (;;) {
    const jobs = cloudLocalJobs(rig);
    const done = jobs.length >= n && jobs.every((j) => j.state !== 'Pending');
    if ((done && undeliveredCopyOps(rig) === 0) || Date.now() > deadline) return jobs;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function occurrences(text: string, phrase: string): number {
  return text.split(phrase).length - 1;
}

/** Ledger row, cloud state and log lines of jobs that did not end, for the failure message. */
function describeJobs(rig: FaultRig, jobIds: string[], logs: string): string {
  const agentDb = openSqlite(join(rig.agentDataDir, 'agent.db'), { readonly: true });
  const cloudDb = openSqlite(join(rig.dir, 'emulator.db'), { readonly: true });
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

for (const protocol of PROTOCOLS) {
  const POINTS = pointsAt(protocol);
  describe.skipIf(!enabled)(
    `agent SIGKILLed ${KILLS} times during ${JOBS} jobs at connector protocol ${protocol}${underLoad}`,
    () => {
      let rig: FaultRig;
      let agent: CliProcess | undefined;
      let burners: CpuBurners | undefined;

      beforeAll(async () => {
        rig = await startFaultRig({}, { copyStation: true, connectorProtocol: protocol });
        // Bounded by the test's own timeout: they end by themselves if this process dies.
        burners = startCpuBurners(LOAD, 900);
      });

      afterAll(async () => {
        await burners?.stop();
        await agent?.stop();
        await rig?.close();
      });

      it('loses no job, prints none twice, and every job reaches a final Status', async () => {
        agent = await startAgentProcess(rig);
        const printerId = await printerIdOf(rig.sfapi);
        const perRound = Math.ceil(JOBS / (KILLS + 1));
        const jobIds: string[] = [];
        const kills: KillPoint[] = [];
        const copyKills: string[] = [];
        const outputs: string[] = [];
        const copies = new CopySessions(rig);
        for (let round = 0; round < KILLS; round++) {
          const point = POINTS[round % POINTS.length] as KillPoint;
          const dying = agent as CliProcess;
          const onCloud = point === 'download' || point === 'event-send' || point === 'copy-update';
          const proxy = onCloud ? rig.cloudProxy : rig.printerProxy;
          const copyKill = COPY_KILLS[copyKills.length % COPY_KILLS.length] as CopyKill;
          proxy.arm(triggerFor(point, round % 3, () => dying.signal('SIGKILL'), copyKill));
          // Copy sessions run in the copy-update rounds only: a kill elsewhere could land while a
          // copy run is posted, and whether the agent stored it would not be known.
          const copying =
            point === 'copy-update'
              ? copies.run(dying, Number.POSITIVE_INFINITY, { mergeLastRuns: copyKill.merge })
              : Promise.resolve();
          jobIds.push(...(await submitJobs(rig, printerId, jobIds.length, perRound, DOCUMENT_BYTES)));
          await within(
            dying.exited,
            40_000,
            () =>
              `kill point ${point} (round ${round}) never reached; the agent's last log lines:\n${dying.stdout.trimEnd().split('\n').slice(-40).join('\n')}`,
          );
          await copying;
          kills.push(point);
          if (point === 'copy-update') copyKills.push(copyKill.name);
          outputs.push(dying.stdout);
          agent = await startAgentProcess(rig);
        }
        // Two whole sessions beside the last jobs, on the agent that is not killed.
        const lastCopies = copies.run(agent, 2);
        jobIds.push(
          ...(await submitJobs(rig, printerId, jobIds.length, JOBS - jobIds.length, DOCUMENT_BYTES)),
        );
        await lastCopies;

        const statuses = await finalStatuses(rig.sfapi, jobIds, Number(process.env.FAULT_WAIT_MS ?? 120_000));
        const sessions = copies.counted();
        const localJobs = await settledLocalJobs(rig, sessions.length);
        const logs = [...outputs, agent.stdout].join('');
        const prints = printsPerJob(rig.printer.spoolDir, DOCUMENT_BYTES);
        const notDone = jobIds.filter((id) => statuses.get(id) !== 0);
        const lost = jobIds.filter((id) => (prints.get(id)?.whole ?? 0) === 0);
        const twiceAll = jobIds.filter((id) => (prints.get(id)?.whole ?? 0) > 1);
        // The one documented window of a printer that cannot tell (docs/agent-jobs.md, "After a
        // crash"; the simulation's limit-cannot-tell): killed after the kernel took the document's
        // last bytes and before the agent recorded that, so the restarted agent judged the whole
        // document cut and sent it again. Counted and shown apart; any other second print fails.
        const inFlushWindow = twiceAll.filter((id) =>
          logs
            .split('\n')
            .some(
              (line) =>
                line.includes(`"job":"${id}"`) &&
                line.includes('the agent stopped before every byte left it') &&
                line.includes('the printer completed the interrupted job with only part of the document'),
            ),
        );
        const twice = twiceAll.filter((id) => !inFlushWindow.includes(id));
        const partial = jobIds.filter((id) => (prints.get(id)?.partial ?? 0) > 0);
        const count = (point: KillPoint) => kills.filter((k) => k === point).length;
        const found = occurrences(logs, 'found the interrupted job at the printer');
        const absent = occurrences(logs, 'interrupted job never reached the printer');
        const cancelled = occurrences(logs, 'cancelled the interrupted job at the printer');
        const printedCut = occurrences(
          logs,
          'the printer completed the interrupted job with only part of the document',
        );
        const fetchedAgain = occurrences(logs, 'document fetched again');
        const copyKind = (name: string) => copyKills.filter((k) => k === name).length;
        const expectedCopies = sessions.map((s) => ({ state: 'Succeeded', fields: expectedFields(s.runs) }));
        const copyPages = (jobs: { fields: { TotalPrintedPages?: number } }[]) =>
          jobs.reduce((total, j) => total + (j.fields.TotalPrintedPages ?? 0), 0);
        console.info(
          `agent kill proof: protocol=${protocol} load=${LOAD} jobs=${jobIds.length} kills=${kills.length} (${POINTS.map((p) => `${p}=${count(p)}`).join(' ')}) ` +
            `final-status-0=${jobIds.length - notDone.length} lost=${lost.length} printed-twice=${twice.length} printed-twice-in-flush-window=${inFlushWindow.length} ` +
            `partial=${partial.length} reconciled at the printer: found-watched=${found} absent-resent=${absent} ` +
            `cancelled-resent=${cancelled} printed-cut-resent=${printedCut} documents-fetched-again=${fetchedAgain}; ` +
            `copy sessions=${sessions.length} (killed: ${COPY_KILLS.map((k) => `${k.name}=${copyKind(k.name)}`).join(' ')}) ` +
            `runs-accepted=${sessions.reduce((n, s) => n + s.runs.length, 0)} pages-accepted=${copyPages(expectedCopies)} ` +
            `cloud local jobs=${localJobs.length} pages=${copyPages(localJobs)} ` +
            `succeeded=${localJobs.filter((j) => j.state === 'Succeeded').length}`,
        );
        const unexpected = [...new Set([...notDone, ...lost, ...twice])];
        if (unexpected.length > 0) console.info(describeJobs(rig, unexpected, logs));
        expect(jobIds).toHaveLength(JOBS);
        // Every life of the agent spoke the protocol this run is about.
        const lives = outputs.length + 1;
        expect(occurrences(logs, `"protocol":${protocol},"msg":"channel connected"`)).toBeGreaterThanOrEqual(
          lives,
        );
        expect(occurrences(logs, '"msg":"channel connected"')).toBe(
          occurrences(logs, `"protocol":${protocol},"msg":"channel connected"`),
        );
        expect([...rig.cloudProxy.fired, ...rig.printerProxy.fired].sort()).toEqual([...kills].sort());
        expect(notDone.map((id) => [id, statuses.get(id)])).toEqual([]);
        expect(lost).toEqual([]);
        expect(twice).toEqual([]);
        // Each such print is one kill that landed while a document's last bytes went out.
        expect(inFlushWindow.length).toBeLessThanOrEqual(kills.length);
        // Every kill at the printer side left a job the restarted agent reconciled there: a cut
        // Send-Document cancelled (or found completed with part of the document) and sent again, a
        // Create-Job whose answer was lost cancelled or, refused busy, absent and sent again, a job
        // whose whole document had gone out found by its recorded id and watched. Which of these a
        // kill leads to depends on how far the bytes got before it (a kill on Send-Document just after
        // the last bytes is a "found"), so the sum is what is asserted; kills at other points can land
        // mid-submission too, hence "at least". Each partial print is one the agent noticed.
        expect(found + absent + cancelled + printedCut).toBeGreaterThanOrEqual(
          count('ipp-send') + count('ipp-created') + count('printer-accepted'),
        );
        expect(partial.length).toBeLessThanOrEqual(printedCut);
        // A job cut mid-Send-Document is sent again whole after the restart, which lost the small
        // document from memory: it was downloaded again (and checked) for that.
        expect(fetchedAgain).toBeGreaterThanOrEqual(count('ipp-send'));
        // Every copy session is one local job (no resend made a second), Succeeded, with the counts
        // of exactly the runs the agent accepted; sessions are one at a time, so creation order is
        // session order. The last two ended by card removal on a live agent.
        expect(copyKills).toHaveLength(count('copy-update'));
        expect(sessions).toHaveLength(count('copy-update') + 2);
        expect(sessions.slice(-2).map((s) => [s.removed, s.runs.length])).toEqual([
          [true, 3],
          [true, 3],
        ]);
        expect(localJobs).toEqual(expectedCopies);
        // The agent holds the same: every session final and acknowledged with all its counts.
        expect(agentCopyRecords(rig)).toEqual(
          expectedCopies.map(({ fields }) => ({
            status: 'Succeeded',
            deliveredStatus: 'Succeeded',
            fields,
            delivered: fields,
          })),
        );
      }, 900_000);
    },
  );
}
