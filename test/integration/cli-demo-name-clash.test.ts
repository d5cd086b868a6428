/**
 * `printrelay demo` started into a real name clash: the emulator's data holds "Demo Printer" of
 * the connector of an earlier demo whose agent state (<data-dir>/agent) was removed. The agent
 * logs the refused name, the demo exits 1 with what it found and the command that fixes it, and
 * that command, run verbatim, replaces the old printer so the demo prints again.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CliProcess, runCli } from './cli-process.js';

const checkout = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'printrelay-clash-'));
const dataDir = join(dir, 'demo');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function bash(line: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', line], { cwd: checkout }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('printrelay demo into a name clash', () => {
  it('refuses with what it found and a command that fixes it; that command prints again', async () => {
    const first = new CliProcess(['demo', '--port', '0', '--data-dir', dataDir]);
    await first.waitFor(/^ready\b/m);
    const oldId = (await first.waitFor(/cloud id (\S+)\)/))[1];
    first.signal('SIGINT');
    expect(await first.exited).toBe(0);
    rmSync(join(dataDir, 'agent'), { recursive: true, force: true });

    const clash = await runCli(['demo', '--port', '0', '--data-dir', dataDir]);
    expect(clash.code).toBe(1);
    expect(clash.stdout).not.toMatch(/^ready\b/m);
    // the agent logged the refusal (log lines go to standard output)
    expect(clash.stdout + clash.stderr).toContain('"msg":"printer not registered: name taken"');
    const connector = /belongs to another connector \("Demo Connector", id ([0-9a-f-]{36})\)/.exec(
      clash.stderr,
    )?.[1];
    const fix = `node bin/printrelay.js demo --port 0 --data-dir ${dataDir} --replace-printer`;
    expect(clash.stderr.split('\n').filter((l) => !l.startsWith('{'))).toEqual([
      `error: the emulator already has a printer named "Demo Printer" (cloud id ${oldId}) that belongs to another connector ("Demo Connector", id ${connector}), so this demo's agent cannot register its own: a printer is never taken over. This happens when ${dataDir}/agent was removed but the emulator's data was kept. Fix: start the demo with --replace-printer, which deletes that printer (jobs waiting for it are lost) and registers this one:`,
      `  ${fix}`,
      'or start it with a fresh --data-dir.',
      '',
    ]);

    const fixed = new CliProcess(['-c', `exec ${fix}`], {}, ['bash']);
    try {
      await fixed.waitFor(/^ready\b/m);
      const newId = (await fixed.waitFor(/cloud id (\S+)\)/))[1];
      expect(newId).not.toBe(oldId);
      const line = fixed.stdout
        .split('\n')
        .find((l) => /^\s+node bin\/printrelay\.js print .*"Demo Printer"/.test(l))
        ?.trim();
      const printed = await bash(line as string);
      expect(printed.stderr).toContain('status 0 PRINTED|COMPLETE| pages 2/2');
      expect(printed.code).toBe(0);
    } finally {
      expect(await fixed.stop()).toBe(0);
    }
  }, 180_000);
});
