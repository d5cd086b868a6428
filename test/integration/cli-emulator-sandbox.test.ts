/**
 * `printrelay emulator` as a process: the sandbox under /_emulator/ is on by default (the test
 * clock answers and moves), and `--no-faults` starts without it (404).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliProcess } from './cli-process.js';

describe('printrelay emulator and its sandbox', { timeout: 60_000 }, () => {
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
});
