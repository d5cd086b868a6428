/**
 * Error lines to the Windows Application event log, next to the rotating log files: IT watches
 * the event log. A pino destination stream for the error level and above; each line becomes
 * one `eventcreate` call (spawned, never awaited on the caller's path). Throttled: one call at
 * a time and at most one per `minGapMs`; lines arriving meanwhile are counted and the next event
 * says how many were left out (they are all in the log files). Lines arrive already redacted.
 */
import { spawn } from 'node:child_process';
import { Writable } from 'node:stream';

/** The event source the agent's events carry. */
export const EVENT_SOURCE = 'PrintRelay';

/** Starts a program and resolves when it has exited; injectable for tests. */
export type RunProgram = (command: string, args: string[]) => Promise<void>;

const runEventcreate: RunProgram = (command, args) =>
  new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'ignore', windowsHide: true });
    child.on('error', () => resolve());
    child.on('exit', () => resolve());
  });

/** eventcreate's arguments for one message. Pure. */
export function eventcreateArgs(level: 'ERROR' | 'WARNING', message: string): string[] {
  // eventcreate takes at most 1024 characters of description.
  const text = message.length > 1000 ? `${message.slice(0, 1000)}...` : message;
  return ['/L', 'APPLICATION', '/T', level, '/SO', EVENT_SOURCE, '/ID', '100', '/D', text];
}

/** One pino JSON line as the event's text: message, then the scope and error fields. Pure. */
export function eventText(line: string): string {
  try {
    const {
      msg,
      level: _level,
      time: _time,
      app: _app,
      pid: _pid,
      hostname: _host,
      ...rest
    } = JSON.parse(line);
    const fields = Object.entries(rest).map(
      ([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`,
    );
    return [String(msg ?? ''), ...fields].join(' ').trim();
  } catch {
    return line.trim();
  }
}

/** The destination stream; the logger owns it. */
export class EventLogStream extends Writable {
  private busy = false;
  private lastAt = Number.NEGATIVE_INFINITY;
  private skipped = 0;

  constructor(
    private readonly run: RunProgram = runEventcreate,
    private readonly minGapMs = 2000,
    private readonly now: () => number = Date.now,
  ) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    done();
    if (this.busy || this.now() - this.lastAt < this.minGapMs) {
      this.skipped++;
      return;
    }
    const note =
      this.skipped > 0 ? ` (${this.skipped} more error line(s) since the last event: see the log files)` : '';
    this.skipped = 0;
    this.busy = true;
    this.lastAt = this.now();
    void this.run('eventcreate', eventcreateArgs('ERROR', `${eventText(chunk.toString())}${note}`)).finally(
      () => {
        this.busy = false;
      },
    );
  }
}
