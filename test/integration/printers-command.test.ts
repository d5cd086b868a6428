/**
 * `printrelay printers --config FILE --json` (the real CLI, spawned) with a config whose
 * `discovery` section points at a private cupsd: the queues there lead to the shared
 * ippeveprinter. The listing must be what the agent registers: the static printer plus the
 * discovered queues through the config's allow/deny lists, narrowed by the --deny flag, each
 * described with its mapped properties; a CUPS server that does not answer is reported by name
 * without hiding the static printer.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Survey } from '../../src/printing/discovery/printer-survey.js';
import { addEverywhereQueue, type PrivateCupsd, startCupsd } from '../support/cupsd.js';
import { freePort, peersAvailable } from '../support/peers.js';
import { writeAgentYaml } from '../support/agent-yaml.js';

const available = peersAvailable('cupsd', 'lpadmin', 'ippeveprinter') && inject('ippeveprinterUri') !== '';

/** Runs `printrelay printers ARGS`; resolves with the exit code and the output. */
function printrelayPrinters(
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/printrelay.js', 'printers', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d) => {
      stderr += d.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Writes an agent.yaml with one static printer and the given discovery section lines. */
function agentYaml(dir: string, name: string, staticUri: string, discovery: string[]): string {
  return writeAgentYaml(dir, name, [
    'discovery:',
    ...discovery.map((line) => `  ${line}`),
    'printers:',
    `  - { name: Direct, uri: "${staticUri}" }`,
  ]);
}

describe.runIf(available)('printrelay printers --config with a discovery section', () => {
  let cupsd: PrivateCupsd;
  const printerUri = () => inject('ippeveprinterUri');
  const queueUri = (queue: string) => `cups://${queue}?server=${cupsd.server}`;

  beforeAll(async () => {
    cupsd = await startCupsd();
    for (const queue of ['Office_Front', 'Office_Back', 'Office_Fax', 'Lobby'])
      addEverywhereQueue(cupsd, queue, printerUri(), `Floor ${queue}`);
  });

  afterAll(async () => {
    await cupsd?.stop();
  });

  it('lists the static printer and the allowed CUPS queues with mapped properties', async () => {
    const file = agentYaml(cupsd.dir, 'agent.yaml', printerUri(), [
      'cups: true',
      `cups_server: "${cupsd.server}"`,
      'allow: ["Office_*"]',
      'deny: ["*Fax*"]',
    ]);
    const { code, stdout, stderr } = await printrelayPrinters(['--config', file, '--json']);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const survey = JSON.parse(stdout) as Survey;
    expect(survey.failedSources).toEqual([]);
    expect(survey.printers.map((p) => [p.name, p.uri, p.source, p.ok])).toEqual([
      ['Direct', printerUri(), 'config', true],
      ['Office_Back', queueUri('Office_Back'), 'cups', true],
      ['Office_Front', queueUri('Office_Front'), 'cups', true],
    ]);
    for (const row of survey.printers) {
      expect(row.state).toBe('idle');
      expect(row.properties?.MediaSupported).toEqual(expect.arrayContaining(['A4']));
      expect(row.properties?.ColorSupported).toBe(false);
    }
    expect(survey.printers[1]?.makeAndModel).toContain('IPP Everywhere');
    expect(survey.printers[1]?.documentFormats).toContain('application/pdf');

    const narrowed = await printrelayPrinters(['--config', file, '--json', '--deny', '*Back*']);
    expect(narrowed.code).toBe(0);
    expect((JSON.parse(narrowed.stdout) as Survey).printers.map((p) => p.name)).toEqual([
      'Direct',
      'Office_Front',
    ]);
  });

  it('reports a CUPS server that does not answer by name and still lists the static printer', async () => {
    const file = agentYaml(cupsd.dir, 'agent-dead-cups.yaml', printerUri(), [
      'cups: true',
      `cups_server: "127.0.0.1:${await freePort()}"`,
    ]);
    const { code, stdout } = await printrelayPrinters(['--config', file, '--json']);
    expect(code).toBe(1);
    const survey = JSON.parse(stdout) as Survey;
    expect(survey.printers.map((p) => [p.name, p.ok])).toEqual([['Direct', true]]);
    expect(survey.failedSources).toEqual([{ source: 'cups', error: expect.stringMatching(/unreachable/) }]);
    const text = await printrelayPrinters(['--config', file]);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/^discovery failed \(cups\): .*unreachable/m);
    expect(text.stdout).toMatch(/^Direct {2}ipp:\/\//m);
  });
});
