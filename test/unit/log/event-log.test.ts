import { describe, expect, it } from 'vitest';
import { withEventLog } from '../../../src/cli/commands/agent.js';
import { EventLogStream, eventcreateArgs, eventText } from '../../../src/log/event-log.js';
import { createLogger } from '../../../src/log/logger.js';
import { Redactor } from '../../../src/log/redaction.js';
import { Writable } from 'node:stream';

/** An event log whose eventcreate calls are recorded and finish when the test says so. */
function recordingEventLog(clock: { now: number }) {
  const calls: string[][] = [];
  const finishers: (() => void)[] = [];
  const stream = new EventLogStream(
    (command, args) => {
      calls.push([command, ...args]);
      return new Promise<void>((resolve) => finishers.push(resolve));
    },
    2000,
    () => clock.now,
  );
  return {
    stream,
    calls,
    finish: async () => {
      finishers.shift()?.();
      await new Promise((r) => setImmediate(r));
    },
  };
}

const line = (msg: string, extra: Record<string, unknown> = {}) =>
  Buffer.from(`${JSON.stringify({ level: 'error', time: 't', app: 'printrelay', msg, ...extra })}\n`);

describe('EventLogStream', () => {
  it('writes one eventcreate per error line, throttled, and says how many were left out', async () => {
    const clock = { now: 0 };
    const log = recordingEventLog(clock);
    log.stream.write(line('printer down', { printer: 'Floor 2' }));
    log.stream.write(line('second')); // while the first call runs: left out
    await log.finish();
    clock.now = 1000;
    log.stream.write(line('third')); // within 2 s: left out
    clock.now = 2500;
    log.stream.write(line('job failed', { job: 'j1' }));
    await log.finish();
    expect(log.calls).toEqual([
      ['eventcreate', ...eventcreateArgs('ERROR', 'printer down printer=Floor 2')],
      [
        'eventcreate',
        ...eventcreateArgs(
          'ERROR',
          'job failed job=j1 (2 more error line(s) since the last event: see the log files)',
        ),
      ],
    ]);
    expect(log.calls[0]).toEqual([
      'eventcreate',
      '/L',
      'APPLICATION',
      '/T',
      'ERROR',
      '/SO',
      'PrintRelay',
      '/ID',
      '100',
      '/D',
      'printer down printer=Floor 2',
    ]);
  });

  it('cuts long messages to what eventcreate takes', () => {
    const args = eventcreateArgs('WARNING', 'x'.repeat(1500));
    expect(args.at(-1)).toBe(`${'x'.repeat(1000)}...`);
  });

  it('turns a line that is not JSON into its text', () => {
    expect(eventText('plain words\n')).toBe('plain words');
  });

  it('gets only error lines, already redacted, while stdout gets every line', async () => {
    const clock = { now: 0 };
    const log = recordingEventLog(clock);
    const stdout: string[] = [];
    const capture = new Writable({
      write(chunk, _e, done) {
        stdout.push(chunk.toString());
        done();
      },
    });
    const redactor = new Redactor();
    redactor.add('s3cret-client-secret');
    const logger = createLogger({ redactor, level: 'info', destination: withEventLog(capture, log.stream) });
    logger.info('agent running');
    logger.error({ detail: 'token s3cret-client-secret refused' }, 'refresh failed');
    await new Promise((r) => setImmediate(r));
    expect(stdout.length).toBe(2);
    expect(log.calls.length).toBe(1);
    const text = log.calls[0]!.at(-1) as string;
    expect(text).toMatch(/^refresh failed detail=token \S+ refused$/);
    expect(text).not.toContain('s3cret-client-secret');
  });
});
