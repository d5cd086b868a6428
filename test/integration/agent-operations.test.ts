/**
 * The operations side of a real `printrelay agent` process, against the real emulator and
 * ippeveprinter: an unversioned agent.yaml is migrated with a backup, the control API answers
 * /healthz, /readyz, /status and /metrics, `printrelay status` reads it, SIGHUP adds a printer
 * and changes the log level while a job is printing (the job completes, printed once), a broken
 * file on SIGHUP keeps the running configuration, and a lost cloud makes /readyz answer 503.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { AgentStatus } from '../../src/agent/control/agent-status.js';
import type { SfapiClient } from '../../src/client/sfapi-client.js';
import { DEMO } from '../../src/config/load-config.js';
import type { Emulator } from '../../src/emulator/app.js';
import { sleep } from '../../src/lib/abort.js';
import { SQLITE_PACKAGE } from '../../src/lib/sqlite.js';
import { packageVersion } from '../../src/lib/package-version.js';
import { type EmulatorWithApp, startEmulatorWithApp, startSlowPrinter } from '../support/agent-rig.js';
import { demoCloudLines } from '../support/emulator-agent-config.js';
import type { RunningIppEvePrinter } from '../support/ippeveprinter.js';
import { peersAvailable } from '../support/peers.js';
import { CliProcess, runCli } from './cli-process.js';

const enabled = peersAvailable('ippeveprinter') && inject('ippeveprinterUri') !== '';

describe.skipIf(!enabled)('agent operations: control API, status, reload, config migration', () => {
  let dir: string;
  let emulator: Emulator;
  let base: string;
  let slow: RunningIppEvePrinter;
  let sfapi: SfapiClient;
  let rig: EmulatorWithApp;
  let agent: CliProcess;
  let control: string;
  let configFile: string;

  const yaml = (extraPrinter: string, level: string) => `# Site agent
# written before versions existed

${demoCloudLines(base).join('\n')}
log:
  level: ${level}
control:
  port: 0
jobs:
  retry_initial_ms: 50
  retry_max_ms: 500
  status_poll_ms: 100
printers:
  - name: Slow Printer
    uri: ${slow.uri}
${extraPrinter}`;

  const get = async (path: string) => {
    const res = await fetch(`${control}${path}`);
    return { status: res.status, text: await res.text() };
  };
  const status = async () => JSON.parse((await get('/status')).text) as AgentStatus;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-ops-'));
    slow = await startSlowPrinter(dir, 'Ops Slow Printer', 3);
    rig = await startEmulatorWithApp(dir);
    ({ emulator, base, sfapi } = rig);
    configFile = join(dir, 'agent.yaml');
    writeFileSync(configFile, yaml('', 'info'), { mode: 0o640 });
    // the module trace records every package the agent process imports
    const trace = new URL('../support/module-trace/register.mjs', import.meta.url).pathname;
    agent = new CliProcess(
      ['agent', '--config', configFile, '--data-dir', join(dir, 'agent'), '--no-pretty'],
      {
        NODE_OPTIONS: `--import ${trace}`,
        PRINTRELAY_MODULE_TRACE: join(dir, 'modules.txt'),
      },
    );
    control = (await agent.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)","msg":"control API listening"/))[1]!;
    await agent.waitFor(/"msg":"agent running"/);
  });

  afterAll(async () => {
    await agent?.stop();
    await rig?.close();
    await slow?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('migrates the unversioned file with a 0600 backup (it holds secrets) and says so', () => {
    const migrated = readFileSync(configFile, 'utf8');
    expect(
      migrated.startsWith('# Site agent\n# written before versions existed\n\nversion: 1\n\ncloud:\n'),
    ).toBe(true);
    expect(readFileSync(`${configFile}.v0.bak`, 'utf8')).toBe(yaml('', 'info'));
    expect(statSync(`${configFile}.v0.bak`).mode & 0o777).toBe(0o600);
    expect(statSync(configFile).mode & 0o777).toBe(0o640);
    expect(agent.stdout).toContain(
      `"msg":"configuration file migrated from version 0 to 1: added \`version: 1\` at the top; original kept in ${configFile}.v0.bak"`,
    );
    expect(agent.stdout).not.toContain(DEMO.admin.password);
  });

  it('the agent process stays light: it loads prom-client but never fastify', () => {
    const packages = new Set(readFileSync(join(dir, 'modules.txt'), 'utf8').split('\n'));
    expect(packages.has('prom-client')).toBe(true);
    expect(packages.has(SQLITE_PACKAGE)).toBe(true);
    expect([...packages].filter((p) => p === 'fastify' || p.startsWith('@fastify/'))).toEqual([]);
  });

  it('answers /healthz, /readyz and /status, and printrelay status shows the same', async () => {
    expect(await get('/healthz')).toEqual({ status: 200, text: '{"status":"ok"}\n' });
    const ready = await get('/readyz');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.text)).toEqual({
      ready: true,
      reasons: [],
      checks: { registered: true, tokenValid: true, cloudReachable: true },
      printers: [{ name: 'Slow Printer', state: 'idle' }],
    });
    const s = await status();
    expect(s.printers.map((p) => [p.name, p.uri, p.state])).toEqual([['Slow Printer', slow.uri, 'idle']]);
    expect(s.cloud).toMatchObject({ url: base, channel: 'websocket', connected: true, reachable: true });
    expect(s.jobs).toEqual({ inFlight: 0, list: [] });
    expect((await get('/nope')).status).toBe(404);

    const human = await runCli(['status', '--url', control]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('Ready:      yes\n');
    expect(human.stdout).toContain(`Cloud:      ${base}, WebSocket connected, reachable, last answer `);
    expect(human.stdout).toContain(`Printers (1):\n  Slow Printer  idle  ${slow.uri}\nJobs in flight: 0\n`);
    const json = await runCli(['status', '--url', control, '--json']);
    expect(JSON.parse(json.stdout).connector).toEqual(s.connector);
  });

  it('SIGHUP adds a printer and raises the log level while a job prints; the job completes once', async () => {
    const cloudId = (await status()).printers[0]!.cloudId;
    const file = join(dir, 'doc.txt');
    writeFileSync(file, 'printed while the agent reloads\n');
    const upload = await sfapi.prepareUpload();
    await sfapi.upload(upload.sasUri, file, () => {});
    const { jobid } = await sfapi.print({
      fileid: upload.fileid,
      type: 'txt',
      printerid: cloudId,
      alias: 'r.txt',
    });
    while (!(await status()).jobs.list.some((j) => j.id === jobid && j.state === 'submitted'))
      await sleep(50);

    writeFileSync(
      configFile,
      `version: 1\n${yaml(`  - name: Reload Printer\n    uri: ${inject('ippeveprinterUri')}\n`, 'debug')}`,
    );
    agent.signal('SIGHUP');
    await agent.waitFor(
      /"msg":"configuration reloaded: printers added: Reload Printer; log level info -> debug"/,
    );
    expect((await status()).printers.map((p) => p.name).sort()).toEqual(['Reload Printer', 'Slow Printer']);
    expect(agent.stdout).toMatch(/"level":"debug"/);

    while ((await sfapi.status(jobid)).jobstatus !== 0) await sleep(100);
    const prints = readdirSync(slow.spoolDir).filter((f) => f.includes(`printrelay-${jobid}.`));
    expect(new Set(prints.map((f) => f.split('-')[0])).size).toBe(1);
    const metrics = (await get('/metrics')).text;
    expect(metrics).toContain('printrelay_jobs_total{state="completed",printer="Slow Printer"} 1\n');
    expect(metrics).toContain('printrelay_download_bytes_total 32\n');
    expect(metrics).toContain('printrelay_print_bytes_total 32\n');
    expect(metrics).toContain('printrelay_print_latency_seconds_count{printer="Slow Printer"} 1\n');
    expect(metrics).toContain('printrelay_printer_state{printer="Reload Printer",state="idle"} 1\n');
    expect(metrics).toContain(
      `printrelay_build_info{version="${packageVersion()}",node="${process.version}"} 1\n`,
    );
    expect(metrics).toContain('printrelay_cloud_connected 1\n');
    expect(metrics).toContain('printrelay_cloud_reachable 1\n');
  });

  it('a broken file on SIGHUP is reported with its line and column and the running configuration stays', async () => {
    const good = readFileSync(configFile, 'utf8');
    writeFileSync(configFile, `${good}  - name: [unclosed\n`);
    agent.signal('SIGHUP');
    const line = good.split('\n').length + 1;
    await agent.waitFor(/configuration reload failed; keeping the running configuration/);
    expect(agent.stdout).toContain(`keeping the running configuration: ${configFile}:${line}:1: (yaml): `);
    expect((await status()).printers).toHaveLength(2);
    expect((await get('/healthz')).status).toBe(200);
  });

  it('/readyz answers 503 with the reason once the cloud is gone', async () => {
    await emulator.close();
    let ready = await get('/readyz');
    while (ready.status === 200) {
      await sleep(100);
      ready = await get('/readyz');
    }
    expect(ready.status).toBe(503);
    const body = JSON.parse(ready.text) as { ready: boolean; reasons: string[] };
    expect(body.ready).toBe(false);
    expect(body.reasons[0]).toMatch(/^the cloud is not reachable: .*ECONNREFUSED/);
    const human = await runCli(['status', '--url', control]);
    expect(human.code).toBe(2);
    expect(human.stdout).toContain('Ready:      no (the cloud is not reachable: ');
    const metrics = (await get('/metrics')).text;
    expect(metrics).toContain('printrelay_cloud_connected 0\n');
    expect(metrics).toContain('printrelay_cloud_reachable 0\n');
  });
});
