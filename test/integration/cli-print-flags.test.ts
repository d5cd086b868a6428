/**
 * `printrelay print`'s colour flags on the real command line: --mono prints in black and white,
 * the old spelling --no-color still does with a deprecation note on standard error, and --mono
 * with --color is refused with the reason. The service URL answers nothing (port 1), so each run
 * ends at the first request, after the flags were read.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from './cli-process.js';

const base = ['print', 'docs/sample.pdf', '--printer', 'Demo Printer', '--url', 'http://127.0.0.1:1'];
const note =
  'note: --no-color is deprecated for printing in black and white: use --mono (it still works, for now)';

describe('printrelay print --mono', () => {
  it('accepts --mono without a note', async () => {
    const result = await runCli([...base, '--mono']);
    expect(result.stderr).not.toContain('unknown option');
    expect(result.stderr).not.toContain('deprecated');
    expect(result.stderr).toMatch(/^error: .*127\.0\.0\.1:1/m);
  }, 60_000);

  it('keeps --no-color working, with a note on standard error', async () => {
    const result = await runCli([...base, '--no-color']);
    expect(result.stderr.split('\n')[0]).toBe(note);
    expect(result.stdout).not.toContain('deprecated');
  }, 60_000);

  it('refuses --mono with --color', async () => {
    const result = await runCli([...base, '--mono', '--color']);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toBe('error: --mono and --color contradict each other: give one of them\n');
  }, 60_000);

  it('lists --mono in the help and no longer --no-color', async () => {
    const help = (await runCli(['print', '--help'])).stdout;
    expect(help).toMatch(/--mono\s+print in black and white \(monochrome\)/);
    expect(help).not.toContain('--no-color');
  }, 60_000);
});
