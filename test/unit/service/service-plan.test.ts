import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runServicePlan, ServiceCommandError, type ServicePlan } from '../../../src/service/service-plan.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'printrelay-plan-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('runServicePlan', () => {
  it('makes directories, copies, writes and runs in order', async () => {
    writeFileSync(join(dir, 'host.exe'), 'binary');
    const ran: string[] = [];
    const plan: ServicePlan = {
      action: 'install',
      steps: [
        { kind: 'mkdir', path: join(dir, 'svc', 'logs') },
        { kind: 'copy', from: join(dir, 'host.exe'), to: join(dir, 'svc', 'agent.exe') },
        { kind: 'write', path: join(dir, 'svc', 'agent.xml'), content: '<service/>\n' },
        { kind: 'run', command: 'agent.exe', args: ['install'] },
      ],
    };
    const code = await runServicePlan(plan, async (command, args) => {
      ran.push([command, ...args].join(' '));
      return 0;
    });
    expect(code).toBe(0);
    expect(ran).toEqual(['agent.exe install']);
    expect(readFileSync(join(dir, 'svc', 'agent.exe'), 'utf8')).toBe('binary');
    expect(readFileSync(join(dir, 'svc', 'agent.xml'), 'utf8')).toBe('<service/>\n');
  });

  it('stops at a failing command, naming it and its exit code; ignores a failure it may have', async () => {
    const plan: ServicePlan = {
      action: 'uninstall',
      steps: [
        { kind: 'run', command: 'svc.exe', args: ['stop'], mayFail: true },
        { kind: 'run', command: 'svc.exe', args: ['uninstall'] },
        { kind: 'run', command: 'never', args: [] },
      ],
    };
    const ran: string[] = [];
    const run = async (command: string, args: string[]) => {
      ran.push([command, ...args].join(' '));
      return 1062;
    };
    const failure = runServicePlan(plan, run);
    await expect(failure).rejects.toBeInstanceOf(ServiceCommandError);
    await expect(runServicePlan(plan, run)).rejects.toThrow('svc.exe uninstall exited with code 1062');
    expect(ran.slice(0, 2)).toEqual(['svc.exe stop', 'svc.exe uninstall']);
  });

  it('answers with the exit code of a status command', async () => {
    const plan: ServicePlan = {
      action: 'status',
      steps: [{ kind: 'run', command: 'systemctl', args: ['status'], mayFail: true }],
    };
    expect(await runServicePlan(plan, async () => 3)).toBe(3);
  });
});
