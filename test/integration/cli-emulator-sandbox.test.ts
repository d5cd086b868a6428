/**
 * `printrelay emulator` as a process: the sandbox under /_emulator/ is on by default (the test
 * clock answers and moves), `--no-faults` starts without it (404), `--faults FILE` starts with
 * the file's rules (a bad file is refused with line and column), and `printrelay emulator
 * faults ...` / `clock ...` steer a running one.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliProcess, runCli } from './cli-process.js';

describe('printrelay emulator and its sandbox', { timeout: 120_000 }, () => {
  let dir: string;
  const started: CliProcess[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cli-sandbox-'));
  });
  afterAll(async () => {
    for (const p of started) await p.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** Starts an emulator process with `extra` flags; its base URL. */
  async function emulator(name: string, ...extra: string[]): Promise<string> {
    const p = new CliProcess([
      'emulator',
      '--listen',
      '127.0.0.1:0',
      '--db',
      ':memory:',
      '--data-dir',
      join(dir, name),
      ...extra,
    ]);
    started.push(p);
    return (await p.waitFor(/listening on (\S+)/))[1]!;
  }

  it('serves the test clock by default and not with --no-faults', async () => {
    const on = await emulator('on');
    const moved = await request(`${on}/_emulator/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advance_s: 90 }),
    });
    expect(moved.statusCode).toBe(200);
    expect(((await moved.body.json()) as { offset_s: number }).offset_s).toBe(90);

    const off = await emulator('off', '--no-faults');
    const refused = await request(`${off}/_emulator/clock`);
    await refused.body.dump();
    expect(refused.statusCode).toBe(404);
  });

  it('starts with the rules of --faults FILE and is steered by faults and clock commands', async () => {
    const file = join(dir, 'faults.yaml');
    await writeFile(
      file,
      'version: 1\nfaults:\n  - operation: GetPrinter\n    respond: { status: 503 }\n    times: 2\n',
    );
    const url = await emulator('steered', '--faults', file);
    const cli = (...args: string[]) => runCli(['emulator', ...args, '--url', url]);
    const listed = await cli('faults', 'list');
    expect(listed.stdout).toBe(
      'f1 {"operation":"GetPrinter","respond":{"status":503}} (hits 0, uses left 2)\n',
    );
    const added = await cli('faults', 'add', '{"operation":"Print","latency_ms":100}');
    expect(added.stdout).toBe('added f2 {"operation":"Print","latency_ms":100} (hits 0)\n');
    const refused = await cli('faults', 'add', '{"operation":"Print","respond":{"status":99}}');
    expect([refused.code, refused.stderr]).toEqual([
      1,
      'error: respond.status: must be an HTTP status from 200 to 599\n',
    ]);
    expect((await cli('faults', 'remove', 'f1')).stdout).toBe('removed f1\n');
    expect((await cli('faults', 'remove', 'f1')).stderr).toBe('error: fault rule f1 not found\n');
    expect((await cli('faults', 'clear')).stdout).toBe('removed 1 rule(s)\n');
    expect((await cli('clock', 'advance', '2h')).stdout).toMatch(
      /^emulator time \S+Z \(offset \+7200 s\)\n$/,
    );
    expect((await cli('clock', 'show')).stdout).toMatch(/\(offset \+7200 s\)\n$/);
    const off = await emulator('steered-off', '--no-faults');
    const absent = await runCli(['emulator', 'faults', 'list', '--url', off]);
    expect(absent.stderr).toBe(
      `error: the emulator at ${off} has no fault switchboard or test clock (started with --no-faults?)\n`,
    );
  });

  it('refuses a bad --faults file naming line and column', async () => {
    const file = join(dir, 'bad-faults.yaml');
    await writeFile(file, 'version: 1\nfaults:\n  - operation: Print\n    cut: yes please\n');
    const result = await runCli([
      'emulator',
      '--listen',
      '127.0.0.1:0',
      '--db',
      ':memory:',
      '--data-dir',
      join(dir, 'bad'),
      '--faults',
      file,
    ]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`${file}:4:10: faults[0].cut: must be true`);
  });
});
