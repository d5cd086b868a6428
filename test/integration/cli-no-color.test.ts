/**
 * NO_COLOR (https://no-color.org): pretty log lines are coloured on request (--pretty) unless
 * NO_COLOR is set to a non-empty value; an empty NO_COLOR does not count.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CliProcess } from './cli-process.js';

const dir = mkdtempSync(join(tmpdir(), 'printrelay-nocolor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The first pretty log line of an emulator started with --pretty and this NO_COLOR. */
async function firstPrettyLine(noColor: string): Promise<string> {
  const emulator = new CliProcess(
    [
      'emulator',
      '--listen',
      '127.0.0.1:0',
      '--db',
      ':memory:',
      '--data-dir',
      mkdtempSync(join(dir, 'e-')),
      '--pretty',
    ],
    { NO_COLOR: noColor, FORCE_COLOR: '' },
  );
  try {
    return (await emulator.waitFor(/^\[[\d:.]+\] .*INFO.*$/m))[0];
  } finally {
    await emulator.stop();
  }
}

describe('NO_COLOR', () => {
  it('turns the colour of pretty log lines off', async () => {
    const line = await firstPrettyLine('1');
    expect(line).toMatch(/^\[[\d:.]+\] INFO: seeded an empty database$/);
    expect(line).not.toContain('\x1b[');
  }, 60_000);

  it('leaves colour on when empty', async () => {
    expect(await firstPrettyLine('')).toContain('\x1b[32mINFO\x1b[39m');
  }, 60_000);
});
