/**
 * What a release station shows people, as an interface the station is given: messages,
 * per-job progress and, in choose mode, a selection. `ConsoleReleaseUi` is the terminal version
 * (numbers typed on a line); tests pass fakes. Card numbers never reach the UI.
 */
import { createInterface } from 'node:readline/promises';
import type { Readable, Writable } from 'node:stream';
import { jobTitle, type TpfmJob } from '../../protocol/tpfm-job-list.js';
import type { TpfmProgressEvent } from '../../client/tpfm-print-run.js';

/** The user's choice in choose mode (empty lists: nothing). */
export interface JobChoice {
  print: TpfmJob[];
  delete: TpfmJob[];
}

/** The station's terminal. */
export interface ReleaseUi {
  /** A line for the person at the printer. */
  message(kind: 'info' | 'error', text: string): void;
  /** Progress of one releasing job. */
  progress(job: TpfmJob, event: TpfmProgressEvent): void;
  /** Lets the person pick jobs; rejects or resolves empty when `signal` aborts (idle timeout). */
  choose(jobs: TpfmJob[], options: { allowDelete: boolean; signal: AbortSignal }): Promise<JobChoice>;
}

/** Parses a selection line: `all`, `1 3`, `d2` (delete job 2), empty = nothing. */
export function parseChoice(line: string, jobs: TpfmJob[], allowDelete: boolean): JobChoice {
  const choice: JobChoice = { print: [], delete: [] };
  const text = line.trim().toLowerCase();
  if (text === 'all' || text === 'a') return { print: [...jobs], delete: [] };
  for (const token of text.split(/[\s,]+/).filter(Boolean)) {
    const match = /^(d?)(\d+)$/.exec(token);
    const job = match ? jobs[Number(match[2]) - 1] : undefined;
    if (!match || !job) throw new Error(`"${token}" is not a job number from 1 to ${jobs.length}`);
    if (match[1] && !allowDelete) throw new Error('deleting jobs is not allowed here');
    (match[1] ? choice.delete : choice.print).push(job);
  }
  return choice;
}

/** A terminal UI on a pair of streams (default standard input/output); owns nothing it must close. */
export class ConsoleReleaseUi implements ReleaseUi {
  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
  ) {}

  message(kind: 'info' | 'error', text: string): void {
    this.output.write(`${kind === 'error' ? '! ' : ''}${text}\n`);
  }

  progress(job: TpfmJob, event: TpfmProgressEvent): void {
    const done = event.kind === 'pages' ? `page ${event.page}/${event.total}` : `${event.percent}%`;
    this.output.write(`  ${jobTitle(job)}: ${done}\n`);
  }

  async choose(jobs: TpfmJob[], options: { allowDelete: boolean; signal: AbortSignal }): Promise<JobChoice> {
    for (const [i, job] of jobs.entries())
      this.output.write(`  ${i + 1}) ${jobTitle(job)} (${job.size} bytes)\n`);
    const hint = options.allowDelete
      ? 'numbers to print, d<number> to delete, all, or Enter for none'
      : 'numbers or all';
    const rl = createInterface({ input: this.input, output: this.output, terminal: false });
    try {
      for (;;) {
        const line = await rl.question(`Choose (${hint}): `, { signal: options.signal });
        try {
          return parseChoice(line, jobs, options.allowDelete);
        } catch (error) {
          this.message('error', (error as Error).message);
        }
      }
    } finally {
      rl.close();
    }
  }
}
