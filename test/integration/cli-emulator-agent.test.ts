/**
 * `printrelay emulator` and `printrelay agent` as separate real processes: the emulator prints
 * its URL and serves the demo seed, the agent (config/agent.example.yaml pointed at it through
 * an environment override) registers its virtual printer, and SIGTERM drains both to exit 0.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CliProcess } from './cli-process.js';

const dir = mkdtempSync(join(tmpdir(), 'printrelay-cli-agent-'));
const started: CliProcess[] = [];

afterAll(async () => {
  await Promise.all(started.map((p) => p.stop()));
  rmSync(dir, { recursive: true, force: true });
});

async function token(url: string): Promise<string> {
  const response = await fetch(`${url}/oauth/access_token/`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from('demo-app:demo-secret').toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=password&username=alice%40demo.test&password=demo-alice&scope=printing',
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}

async function printerNames(url: string, bearer: string): Promise<string[]> {
  const response = await fetch(`${url}/sfapi/GetPrinter/`, {
    headers: { authorization: `Bearer ${bearer}` },
  });
  return ((await response.json()) as { name: string }[]).map((p) => p.name);
}

describe('printrelay emulator + printrelay agent', () => {
  it('the agent registers its printer with the emulator, and both stop cleanly on SIGTERM', async () => {
    const emulator = new CliProcess([
      'emulator',
      '--listen',
      '127.0.0.1:0',
      '--db',
      ':memory:',
      '--data-dir',
      join(dir, 'emulator'),
      '--log-level',
      'warn',
    ]);
    started.push(emulator);
    const url = (await emulator.waitFor(/^listening on (http:\/\/\S+)$/m))[1]!.replace(/\/$/, '');
    const bearer = await token(url);
    // Every organization has its pull-printing queue printer from the start.
    expect(await printerNames(url, bearer)).toEqual(['Pull Printing']);

    const agent = new CliProcess(
      ['agent', '--config', 'config/agent.example.yaml', '--data-dir', join(dir, 'agent'), '--no-pretty'],
      { PRINTRELAY_CLOUD__URL: url },
    );
    started.push(agent);
    await agent.waitFor(/"msg":"agent running"/);
    while (!(await printerNames(url, bearer)).includes('Demo Printer')) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(agent.stdout).not.toContain('demo-secret');
    expect(agent.stdout).not.toContain('demo-admin');

    expect(await agent.stop()).toBe(0);
    expect(agent.stdout).toContain('stopping: finishing in-flight work');
    expect(await emulator.stop()).toBe(0);
  });
});
