/**
 * The exit-code table of docs/operations.md is the code's table (src/cli/exit-codes.ts), and
 * each documented code comes out of a real run of the command in the situation the table names.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { DEMO } from '../../src/config/demo-seed.js';
import { EXIT_CODES } from '../../src/cli/exit-codes.js';
import { CliProcess, runCli, startEmulatorProcess } from './cli-process.js';

const dir = mkdtempSync(join(tmpdir(), 'printrelay-exit-'));
const processes: CliProcess[] = [];
afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  rmSync(dir, { recursive: true, force: true });
});

/** The codes of the documented table, in order. */
function documentedCodes(): number[] {
  const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'operations.md'), 'utf8');
  const section = doc.split('\n## Exit codes\n')[1]?.split('\n## ')[0] ?? '';
  return [...section.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
}

/** An agent.yaml for a cloud at `url`, with the control API on a free port. */
function agentYaml(name: string, url: string): string {
  const path = join(dir, `${name}.yaml`);
  const cloud = { url, client_id: DEMO.client.id, client_secret: DEMO.client.secret };
  writeFileSync(path, stringify({ version: 1, cloud, control: { port: 0 }, connector: { name } }));
  return path;
}

describe('exit codes', () => {
  it('documents exactly the codes the command uses', () => {
    expect(documentedCodes()).toEqual(Object.values(EXIT_CODES));
  });

  it('0: done', async () => {
    expect((await runCli(['--version'])).code).toBe(EXIT_CODES.ok);
    expect((await runCli(['config', 'validate', 'config/agent.example.yaml'])).code).toBe(EXIT_CODES.ok);
  }, 60_000);

  it('1: a failure with its message, and bad usage', async () => {
    const missing = await runCli(['config', 'validate', join(dir, 'missing.yaml')]);
    expect(missing.code).toBe(EXIT_CODES.failure);
    expect(missing.stderr).toMatch(/missing\.yaml: cannot be read \(ENOENT\)/);
    const usage = await runCli(['config', 'validate', '--no-such-option', 'x.yaml']);
    expect(usage.code).toBe(EXIT_CODES.failure);
    expect(usage.stderr).toMatch(/unknown option '--no-such-option'/);
  }, 60_000);

  it('2: status of an agent that answers but is not ready (its cloud is unreachable)', async () => {
    const config = agentYaml('unready', 'http://127.0.0.1:9');
    const credentials = {
      PRINTRELAY_CLOUD__USERNAME: DEMO.admin.email,
      PRINTRELAY_CLOUD__PASSWORD: DEMO.admin.password,
    };
    const agent = new CliProcess(
      ['agent', '--config', config, '--data-dir', join(dir, 'unready'), '--no-pretty'],
      credentials,
    );
    processes.push(agent);
    const control = (
      await agent.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)","msg":"control API listening"/)
    )[1]!;
    const status = await runCli(['status', '--url', control]);
    expect(status.stdout).toContain('Ready:      no');
    expect(status.code).toBe(EXIT_CODES.notReady);
  }, 60_000);

  it('3: service status --json of a service that does not run', async () => {
    const home = join(dir, 'winsw-home');
    const run = await runCli(['service', 'status', '--json', '--manager', 'winsw', '--home', home]);
    expect(JSON.parse(run.stdout)).toMatchObject({ installed: false, running: false });
    expect(run.code).toBe(EXIT_CODES.serviceNotRunning);
  }, 60_000);

  it('78: an unusable database file', async () => {
    const dataDir = join(dir, 'corrupt');
    mkdirSync(dataDir);
    writeFileSync(
      join(dataDir, 'agent.db'),
      Buffer.concat([Buffer.from('not SQLite\n'), Buffer.alloc(8192, 0xa5)]),
    );
    const run = await runCli(['card', 'copies', '--data-dir', dataDir]);
    expect(run.stderr).toMatch(/cannot be used/);
    expect(run.code).toBe(EXIT_CODES.databaseUnreadable);
  }, 60_000);

  it('130: a pairing cancelled with Ctrl+C', async () => {
    const { process: emulator, url } = await startEmulatorProcess(join(dir, 'emulator'));
    processes.push(emulator);
    const pair = new CliProcess([
      'agent',
      'pair',
      '--config',
      agentYaml('pairing', url),
      '--data-dir',
      join(dir, 'pairing'),
    ]);
    processes.push(pair);
    await pair.waitFor(/^Waiting for the sign-in/m);
    pair.signal('SIGINT');
    expect(await pair.exited).toBe(EXIT_CODES.interrupted);
    expect(pair.stderr).toContain('error: pairing cancelled');
  }, 60_000);
});
