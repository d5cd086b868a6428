import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ConsoleReleaseUi, parseChoice } from '../../../../src/agent/release/release-ui.js';
import type { TpfmJob } from '../../../../src/protocol/tpfm-job-list.js';

const jobs: TpfmJob[] = [1, 2, 3].map((n) => ({
  fileName: `j${n}.spl`,
  size: n,
  created: 0,
  modified: 0,
  attributes: 0,
  jobId: `J${n}`,
  displayName: n === 3 ? '' : `Doc ${n}`,
  driverName: 'D',
}));

describe('release terminal', () => {
  it.each([
    ['all', ['j1.spl', 'j2.spl', 'j3.spl'], []],
    ['1 3', ['j1.spl', 'j3.spl'], []],
    ['2,d1', ['j2.spl'], ['j1.spl']],
    ['', [], []],
  ])('parses "%s"', (line, print, del) => {
    const choice = parseChoice(line, jobs, true);
    expect(choice.print.map((j) => j.fileName)).toEqual(print);
    expect(choice.delete.map((j) => j.fileName)).toEqual(del);
  });

  it.each([
    ['4', true, '"4" is not a job number from 1 to 3'],
    ['x', true, '"x" is not a job number'],
    ['d1', false, 'deleting jobs is not allowed here'],
  ])('refuses "%s"', (line, allowDelete, message) => {
    expect(() => parseChoice(line, jobs, allowDelete)).toThrow(message);
  });

  it('lists jobs, re-asks after a bad answer and shows progress', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = '';
    output.on('data', (d) => {
      shown += d.toString();
    });
    const ui = new ConsoleReleaseUi(input, output);
    const answer = ui.choose(jobs, { allowDelete: true, signal: new AbortController().signal });
    input.write('9\n');
    await expect.poll(() => shown).toContain('! "9" is not a job number');
    input.write('d2 3\n');
    const choice = await answer;
    expect(choice.print.map((j) => j.fileName)).toEqual(['j3.spl']);
    expect(choice.delete.map((j) => j.fileName)).toEqual(['j2.spl']);
    expect(shown).toContain('  3) j3.spl (3 bytes)');
    ui.progress(jobs[0]!, { kind: 'percent', percent: 50 });
    expect(shown).toContain('  Doc 1: 50%');
  });

  it('gives up the prompt when the session signal aborts', async () => {
    const controller = new AbortController();
    const ui = new ConsoleReleaseUi(new PassThrough(), new PassThrough());
    const answer = ui.choose(jobs, { allowDelete: false, signal: controller.signal });
    controller.abort(new Error('idle'));
    await expect(answer).rejects.toThrow();
  });
});
