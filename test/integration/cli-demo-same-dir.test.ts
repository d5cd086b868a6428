/**
 * A second demo started on the data directory of a running one refuses at once, naming the
 * running demo's pid and the way out, and leaves what the running demo wrote (its agent.yaml, its
 * agent's tokens) untouched: before the demo took a lock of its own, the second one paired and
 * rewrote both before its agent failed on the agent's lock, and `printrelay swipe` then went to
 * a reader port nobody listened on.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliProcess, runCli } from './cli-process.js';

describe('a second demo on the data directory of a running one', () => {
  const dir = mkdtempSync(join(tmpdir(), 'demo-same-dir-'));
  let first: CliProcess;

  beforeAll(async () => {
    first = new CliProcess(['demo', '--port', '0', '--data-dir', dir]);
    await first.waitFor(/^ready\b.*$/m);
  }, 120_000);

  afterAll(async () => {
    await first?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses before it writes anything, and the running demo keeps its files', async () => {
    const config = readFileSync(join(dir, 'agent.yaml'), 'utf8');
    const tokens = readFileSync(join(dir, 'agent', 'tokens.json'), 'utf8');
    const second = await runCli(['demo', '--port', '0', '--data-dir', dir]);
    expect(readFileSync(join(dir, 'agent.yaml'), 'utf8')).toBe(config);
    expect(readFileSync(join(dir, 'agent', 'tokens.json'), 'utf8')).toBe(tokens);
    expect(second.code).not.toBe(0);
    expect(second.stdout).not.toMatch(/^ready\b/m);
    expect(second.stderr).toContain(`another demo (pid ${first.pid}) is using the data directory ${dir}`);
    expect(second.stderr).toContain('start this one with another --data-dir');
  }, 120_000);
});
