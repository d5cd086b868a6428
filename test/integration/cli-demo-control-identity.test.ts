/**
 * Two demos on one machine, each with its own control API: the banner prints each one's address,
 * `printrelay status --config <dir>/agent.yaml` reports that demo's agent (its pid and data
 * directory), and a configuration whose control port another agent answers on fails naming both
 * data directories. An agent that cannot open its control address (the port is taken) says so
 * in its lock file, and `status` and `doctor` for its configuration report it instead of the
 * other agent's state.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import type { AgentStatus } from '../../src/agent/control/agent-status.js';
import { runDoctor } from '../../src/cli/commands/doctor.js';
import { parseAgentConfig } from '../../src/config/load-config.js';
import { silentLogger } from '../../src/log/logger.js';
import { demoCloudLines } from '../support/emulator-agent-config.js';
import { CliProcess, runCli } from './cli-process.js';

interface RunningDemo {
  process: CliProcess;
  dir: string;
  url: string;
  control: string;
}

describe('two demos on one machine and their control APIs', () => {
  const root = mkdtempSync(join(tmpdir(), 'demo-identity-'));
  const demos: RunningDemo[] = [];
  let a: RunningDemo;
  let b: RunningDemo;

  async function startDemo(name: string): Promise<RunningDemo> {
    const dir = join(root, name);
    const process = new CliProcess(['demo', '--port', '0', '--data-dir', dir]);
    const demo = { process, dir, url: '', control: '' };
    demos.push(demo);
    await process.waitFor(/^ready\b.*$/m);
    demo.url = (await process.waitFor(/Cloud emulator\s+(http:\/\/\S+)/))[1]!;
    demo.control = (await process.waitFor(/Agent status\s+(http:\/\/\S+)/))[1]!;
    return demo;
  }

  // the test setup moves every agent's control API to port 0; these tests read the files' ports
  const portOverride = process.env.PRINTRELAY_CONTROL__PORT;

  beforeAll(async () => {
    delete process.env.PRINTRELAY_CONTROL__PORT;
    [a, b] = await Promise.all([startDemo('a'), startDemo('b')]);
  }, 120_000);

  afterAll(async () => {
    if (portOverride !== undefined) process.env.PRINTRELAY_CONTROL__PORT = portOverride;
    for (const demo of demos) await demo.process.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('gives each demo its own control port and prints it with the status command', () => {
    expect(a.control).not.toBe(b.control);
    for (const demo of [a, b]) {
      expect(demo.process.stdout).toContain(
        `  Agent status       ${demo.control}   (node bin/printrelay.js status --config ${join(demo.dir, 'agent.yaml')})\n`,
      );
      expect(`${demo.process.stdout}${demo.process.stderr}`).not.toMatch(/EADDRINUSE/);
    }
  });

  it('status --config <dir>/agent.yaml reports the agent of that demo', async () => {
    for (const demo of [a, b]) {
      const result = await runCli(['status', '--config', join(demo.dir, 'agent.yaml'), '--json']);
      expect([0, 2], result.stderr).toContain(result.code);
      const status = JSON.parse(result.stdout) as AgentStatus;
      expect(status.pid).toBe(demo.process.pid);
      expect(status.dataDir).toBe(join(demo.dir, 'agent'));
    }
  });

  it('fails naming both data directories when another agent answers on the configured port', async () => {
    const file = join(root, 'b-on-a-port.yaml');
    const port = new URL(a.control).port;
    const text = readFileSync(join(b.dir, 'agent.yaml'), 'utf8');
    expect(text).toMatch(/\n {2}port: \d+\n/);
    writeFileSync(file, text.replace(/\n {2}port: \d+\n/, `\n  port: ${port}\n`), { mode: 0o600 });

    const result = await runCli(['status', '--config', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `the agent answering at ${a.control} (pid ${a.process.pid}, data directory ${join(a.dir, 'agent')}) ` +
        `is not the agent of control.bind/control.port of ${file} (data directory ${join(b.dir, 'agent')}); ` +
        `that agent (pid ${b.process.pid}) listens at ${b.control}.`,
    );
  });

  it('an agent whose control port is taken says so to status and doctor', async () => {
    const dataDir = join(root, 'c-agent');
    const file = join(root, 'c.yaml');
    const port = new URL(a.control).port;
    writeFileSync(
      file,
      [
        'version: 1',
        `data_dir: ${dataDir}`,
        ...demoCloudLines(a.url),
        'control:',
        `  port: ${port}`,
        'printers: []',
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    const config = parseAgentConfig(readFileSync(file, 'utf8'), file, { env: {} });
    const agent = new Agent({ config, dataDir, logger: silentLogger() });
    await agent.start();
    try {
      expect(agent.controlUrl()).toBeUndefined();
      const result = await runCli(['status', '--config', file]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `is not the agent of control.bind/control.port of ${file} (data directory ${dataDir})`,
      );
      expect(result.stderr).toContain(
        `that agent (pid ${process.pid}) runs but could not open its control address: control API not started on 127.0.0.1:${port}: `,
      );
      expect(result.stderr).toContain('EADDRINUSE');

      const doctor = await runDoctor({ config: file });
      const check = doctor.find((r) => r.name === 'agent');
      expect(check?.status).toBe('fail');
      expect(check?.detail).toContain('could not open its control address');
    } finally {
      await agent.stop();
    }
  });
});
