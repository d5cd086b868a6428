/**
 * JobStates: status polls of one printer's jobs that come at once go in one Get-Jobs; a job the
 * list does not hold, a lone poll, and a printer without (or refusing) Get-Jobs get
 * Get-Job-Attributes. A fake client stands in for the printer (the real one: cups-job-states.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { PrinterAttributes } from '../../../../src/printing/printer-backend.js';
import { IppRejectedError } from '../../../../src/printing/ipp/ipp-errors.js';
import { type JobStateClient, JobStates } from '../../../../src/printing/ipp/ipp-job-states.js';

const REQUESTED = ['job-state', 'job-state-reasons'];

/** A printer whose job `id` is in `states`; records every request; answers when release() is called. */
class FakePrinter implements JobStateClient {
  readonly requests: string[] = [];
  readonly signals: (AbortSignal | undefined)[] = [];
  private pending: (() => void)[] = [];
  listRefused = false;

  constructor(readonly states: Map<number, number>) {}

  /** Answers every request sent so far. */
  release(): void {
    const answers = this.pending;
    this.pending = [];
    for (const answer of answers) answer();
  }

  getJobAttributes(jobId: number, signal?: AbortSignal, requested?: string[]): Promise<PrinterAttributes> {
    this.requests.push(`Get-Job-Attributes ${jobId}`);
    this.signals.push(signal);
    expect(requested).toEqual(REQUESTED);
    return this.later(() => {
      const state = this.states.get(jobId);
      if (state === undefined) throw new IppRejectedError(0x0406, 'Get-Job-Attributes');
      return { 'job-id': jobId, 'job-state': state, 'job-state-reasons': 'none' };
    });
  }

  getJobs(which?: string, _signal?: AbortSignal, requested?: string[]): Promise<PrinterAttributes[]> {
    this.requests.push(`Get-Jobs ${which}`);
    expect(requested).toEqual(REQUESTED);
    return this.later(() => {
      if (this.listRefused) throw new IppRejectedError(0x0501, 'Get-Jobs');
      return [...this.states]
        .filter(([, state]) => state < 7)
        .map(([id, state]) => ({ 'job-id': id, 'job-state': state, 'job-state-reasons': 'job-printing' }));
    });
  }

  private later<T>(answer: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push(() => {
        try {
          resolve(answer());
        } catch (error) {
          reject(error);
        }
      });
    });
  }
}

/** Lets queued promise callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('JobStates', () => {
  it('sends a lone poll at once as Get-Job-Attributes with its signal', async () => {
    const printer = new FakePrinter(new Map([[5, 9]]));
    const states = new JobStates(printer, REQUESTED, () => true);
    const signal = new AbortController().signal;
    const answer = states.state(5, signal);
    expect(printer.requests).toEqual(['Get-Job-Attributes 5']);
    expect(printer.signals).toEqual([signal]);
    printer.release();
    expect((await answer)['job-state']).toBe(9);
  });

  it('answers polls that came while one was out with one Get-Jobs, asking alone only for the jobs it does not list', async () => {
    // Jobs 1 and 2 still processing, job 3 completed (not in the not-completed list).
    const printer = new FakePrinter(
      new Map([
        [1, 5],
        [2, 5],
        [3, 9],
      ]),
    );
    const states = new JobStates(printer, REQUESTED, () => true);
    const first = states.state(1);
    const together = [states.state(1), states.state(2), states.state(3)];
    printer.release();
    await first;
    await settle();
    expect(printer.requests).toEqual(['Get-Job-Attributes 1', 'Get-Jobs not-completed']);
    printer.release();
    await settle();
    expect(printer.requests.slice(2)).toEqual(['Get-Job-Attributes 3']);
    printer.release();
    const answers = await Promise.all(together);
    expect(answers.map((a) => [a['job-id'], a['job-state']])).toEqual([
      [1, 5],
      [2, 5],
      [3, 9],
    ]);
    // Job 3's final state came from its own Get-Job-Attributes, not from its absence in the list.
    expect(answers[2]?.['job-state-reasons']).toBe('none');
  });

  it('asks each job alone when the printer does not list Get-Jobs, and after it refused one', async () => {
    const jobs = new Map([
      [1, 5],
      [2, 5],
    ]);
    for (const [listsJobs, refused] of [
      [false, false],
      [true, true],
    ] as const) {
      const printer = new FakePrinter(jobs);
      printer.listRefused = refused;
      const states = new JobStates(printer, REQUESTED, () => listsJobs);
      for (let round = 0; round < 2; round++) {
        const first = states.state(1);
        const together = [states.state(1), states.state(2)];
        printer.release();
        await first;
        for (let i = 0; i < 3; i++) {
          await settle();
          printer.release();
        }
        expect((await Promise.all(together)).map((a) => a['job-state'])).toEqual([5, 5]);
      }
      const lists = printer.requests.filter((r) => r.startsWith('Get-Jobs')).length;
      expect([listsJobs, lists]).toEqual([listsJobs, refused ? 1 : 0]);
      expect(printer.requests.filter((r) => r.startsWith('Get-Job-Attributes')).length).toBe(6);
    }
  });

  it('rejects a poll whose signal aborts, and a job the printer does not know as the printer said', async () => {
    const printer = new FakePrinter(new Map([[1, 5]]));
    const states = new JobStates(printer, REQUESTED, () => true);
    const stop = new AbortController();
    const aborted = states.state(1, stop.signal);
    stop.abort(new Error('stopping'));
    await expect(aborted).rejects.toThrow('stopping');
    const unknown = states.state(8);
    printer.release();
    await settle();
    printer.release();
    await expect(unknown).rejects.toBeInstanceOf(IppRejectedError);
  });
});
