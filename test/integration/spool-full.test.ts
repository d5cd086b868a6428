/**
 * Disk full on the spool folder: a real `printrelay agent` process whose spool folder is a 1 MiB
 * tmpfs (mounted in its own user + mount namespace with `unshare -rm`, so no root is needed),
 * nearly filled by the test. The job's document does not fit: the agent logs a clear error naming
 * the spool file, tells the cloud the job waits and why, keeps running (no crash loop), and
 * prints the job once when space returns.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openSqlite } from '../../src/lib/sqlite.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliProcess } from './cli-process.js';
import { peersAvailable } from '../support/peers.js';
import { type FaultRig, printerIdOf, printsPerJob, startFaultRig, submitJobs } from '../e2e/fault-rig.js';

const enabled = peersAvailable('ippeveprinter', 'unshare');
const bin = join(import.meta.dirname, '..', '..', 'bin', 'printrelay.js');
const DOCUMENT_BYTES = 300 * 1024;

describe.skipIf(!enabled)('disk full on the spool folder', () => {
  let rig: FaultRig;
  let agent: CliProcess | undefined;

  beforeAll(async () => {
    rig = await startFaultRig();
  });

  afterAll(async () => {
    await agent?.stop();
    await rig?.close();
  });

  it('names the path, reports the wait, keeps running, and prints the job once space returns', async () => {
    const spool = join(rig.agentDataDir, 'spool');
    mkdirSync(spool, { recursive: true });
    const mountThen = 'mount -t tmpfs -o size=1m printrelay-spool "$0" && exec "$@"';
    agent = new CliProcess(['agent', '--config', rig.configPath, '--data-dir', rig.agentDataDir], {}, [
      'unshare',
      '-rm',
      'sh',
      '-c',
      mountThen,
      spool,
      process.execPath,
      bin,
    ]);
    await agent.waitFor(/agent running/);
    // The tmpfs exists only in the agent's mount namespace; /proc/<pid>/root shows it.
    const filler = join(`/proc/${agent.pid}/root`, spool, 'filler');
    writeFileSync(filler, Buffer.alloc(900 * 1024));

    const printerId = await printerIdOf(rig.sfapi);
    const [jobId] = await submitJobs(rig, printerId, 0, 1, DOCUMENT_BYTES, 1);
    const spoolFile = join(spool, `${jobId}.txt`);
    const problem = `cannot write the spool file ${spoolFile}: no space left on the device (ENOSPC)`;
    await agent.waitFor(new RegExp(problem.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));

    const cloudDb = openSqlite(join(rig.dir, 'emulator.db'), { readonly: true });
    const cloudJob = () =>
      cloudDb.prepare('SELECT state, message FROM jobs WHERE id = ?').get(jobId) as {
        state: string;
        message: string | null;
      };
    await expect.poll(() => cloudJob().message, { timeout: 15_000 }).not.toBeNull();
    expect(cloudJob()).toEqual({
      state: 'downloading',
      message: `waiting: spool folder full or not writable (${problem}), retry in 1 s`,
    });
    expect(await rig.sfapi.status(jobId as string)).toMatchObject({
      jobstatus: 129,
      jobstatusstring: `SPOOLING|WAITING|spool folder full or not writable (${problem}), retry in 1 s|`,
    });

    rmSync(filler);
    await expect
      .poll(async () => (await rig.sfapi.status(jobId as string)).jobstatus, { timeout: 30_000 })
      .toBe(0);
    cloudDb.close();
    expect(printsPerJob(rig.printer.spoolDir, DOCUMENT_BYTES).get(jobId as string)).toEqual({
      whole: 1,
      partial: 0,
    });
    // One agent process all along: it started once and never exited.
    expect(agent.stdout.split('agent running').length - 1).toBe(1);
    expect(() => process.kill(agent?.pid as number, 0)).not.toThrow();
  }, 90_000);
});
