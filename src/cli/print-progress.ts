/**
 * Progress of `printrelay print`: a cli-progress bar on a terminal (bytes while uploading,
 * pages while printing), plain lines otherwise. Call finish() at the end in either case.
 */
import { SingleBar } from 'cli-progress';
import type { SfapiJobStatus } from '../protocol/sfapi-configuration.js';
import type { PrintReporter } from './print-flow.js';

/** A reporter that can be closed. */
export interface ClosableReporter extends PrintReporter {
  finish(): void;
}

/** Picks the bar on a TTY, plain lines elsewhere. */
export function createPrintReporter(stream: NodeJS.WriteStream = process.stderr): ClosableReporter {
  return stream.isTTY ? new BarReporter(stream) : new LineReporter((line) => stream.write(`${line}\n`));
}

/** Plain lines: each stage, upload in quarter steps, and each change of the job status. */
export class LineReporter implements ClosableReporter {
  private uploadStep = -1;
  private lastStatus = '';

  constructor(private readonly write: (line: string) => void) {}

  stage(message: string): void {
    this.write(message);
  }

  uploaded(bytes: number, total: number): void {
    const percent = total === 0 ? 100 : Math.floor((bytes / total) * 100);
    const step = Math.floor(percent / 25);
    if (step === this.uploadStep) return;
    this.uploadStep = step;
    this.write(`uploaded ${percent}% (${bytes} of ${total} bytes)`);
  }

  status(status: SfapiJobStatus): void {
    const line = `status ${status.jobstatus} ${status.jobstatusstring} pages ${status.jobpagesprinted}/${status.jobpagestotal}`;
    if (line === this.lastStatus) return;
    this.lastStatus = line;
    this.write(line);
  }

  finish(): void {}
}

class BarReporter implements ClosableReporter {
  private bar: SingleBar | undefined;
  private phase: 'upload' | 'print' | undefined;

  constructor(private readonly stream: NodeJS.WriteStream) {}

  stage(message: string): void {
    this.stop();
    this.stream.write(`${message}\n`);
  }

  uploaded(bytes: number, total: number): void {
    this.ensure('upload', '{bar} {percentage}% | {value}/{total} bytes uploaded', total);
    this.bar?.update(bytes);
  }

  status(status: SfapiJobStatus): void {
    const total = Math.max(status.jobpagestotal, status.jobpagesprinted, 1);
    this.ensure('print', '{bar} {value}/{total} pages | {state}', total);
    this.bar?.setTotal(total);
    this.bar?.update(status.jobpagesprinted, { state: status.jobstatusstring || String(status.jobstatus) });
  }

  finish(): void {
    this.stop();
  }

  private ensure(phase: 'upload' | 'print', format: string, total: number): void {
    if (this.phase === phase && this.bar) return;
    this.stop();
    this.phase = phase;
    this.bar = new SingleBar({ format, stream: this.stream, hideCursor: true, clearOnComplete: false });
    this.bar.start(total, 0, { state: '' });
  }

  private stop(): void {
    this.bar?.stop();
    this.bar = undefined;
    this.phase = undefined;
  }
}
