import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENT_NODE_ENV, AGENT_NODE_FLAGS } from '../../../src/service/agent-node-flags.js';

const unit = join(import.meta.dirname, '..', '..', '..', 'packaging', 'systemd', 'printrelay-agent.service');

describe('the node flags of the agent service', () => {
  it('are the ones the systemd unit starts node with', () => {
    const execStart = readFileSync(unit, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('ExecStart='));
    expect(execStart).toEqual([
      `ExecStart=/usr/bin/node ${AGENT_NODE_FLAGS.join(' ')} /usr/lib/printrelay/bin/printrelay.js agent --config /etc/printrelay/agent.yaml --data-dir /var/lib/printrelay`,
    ]);
  });

  it("and its environment are the systemd unit's Environment= lines, besides NODE_ENV", () => {
    const environment = readFileSync(unit, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('Environment=') && !line.startsWith('Environment=NODE_ENV='));
    expect(environment).toEqual(
      Object.entries(AGENT_NODE_ENV).map(([name, value]) => `Environment=${name}=${value}`),
    );
    expect(AGENT_NODE_ENV).toEqual({ MALLOC_ARENA_MAX: '2' });
  });

  it('are flags this node accepts with that environment (a misspelled flag makes node refuse to start)', () => {
    const run = spawnSync(process.execPath, [...AGENT_NODE_FLAGS, '-e', 'process.stdout.write("started")'], {
      encoding: 'utf8',
      env: { ...process.env, ...AGENT_NODE_ENV },
    });
    expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
      status: 0,
      stdout: 'started',
      stderr: '',
    });
  });
});
