/**
 * What bench:release records besides the clock: every HTTP request the emulator and the printer
 * serve (node's `http.server.*` diagnostics channels, free when nobody listens), and in a traced
 * round the info log lines of emulator and agent stamped as they are written. `phaseTable` turns
 * one round's records into the path's steps per job (created, offered and recorded by the agent,
 * claimed, sent to the printer, at the printer, completed, ended in the cloud): when the first
 * job, the median job and the last job reached each step, in ms after the round's start.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createLogger, type Logger } from '../../src/log/logger.js';
import { median } from './stats.js';

/** One request served: when it started and ended (performance.now()), and its kind. */
export interface ServedRequest {
  kind: string;
  start: number;
  end: number | undefined;
}

/** The kind of a request the emulator served: `TPFM <Cmd>`, `sfapi <call>`, `connector` or `other`. */
export function emulatorRequestKind(url: string): string {
  const [path = '', query = ''] = url.split('?');
  const lower = path.toLowerCase();
  if (lower.startsWith('/tpfm')) return `TPFM ${new URLSearchParams(query).get('Cmd') ?? '?'}`;
  if (lower.startsWith('/sfapi/')) return `sfapi ${lower.split('/')[2] ?? ''}`;
  if (lower.startsWith('/connector/')) return 'connector';
  return 'other';
}

/** Records every HTTP request served in this process; `emulator` tells the emulator's from the printer's. */
export class RequestTap {
  readonly served: ServedRequest[] = [];
  private readonly open = new Map<ServerResponse, ServedRequest>();
  private readonly onStart = (message: unknown) => {
    const { request, response, server } = message as {
      request: IncomingMessage;
      response: ServerResponse;
      server: Server;
    };
    const kind = server === this.emulator() ? emulatorRequestKind(request.url ?? '') : 'printer IPP';
    const served: ServedRequest = { kind, start: performance.now(), end: undefined };
    this.served.push(served);
    this.open.set(response, served);
  };
  private readonly onFinish = (message: unknown) => {
    const { response } = message as { response: ServerResponse };
    const served = this.open.get(response);
    if (served) served.end = performance.now();
    this.open.delete(response);
  };

  constructor(private readonly emulator: () => Server | undefined) {
    subscribe('http.server.request.start', this.onStart);
    subscribe('http.server.response.finish', this.onFinish);
  }

  /** The requests that started at or after `from`. */
  since(from: number): ServedRequest[] {
    return this.served.filter((r) => r.start >= from);
  }

  close(): void {
    unsubscribe('http.server.request.start', this.onStart);
    unsubscribe('http.server.response.finish', this.onFinish);
  }
}

/** `<total> (<kind> <per job>, ...)`: the requests of a round per job, by kind. */
export function requestsPerJob(requests: ServedRequest[], jobs: number): string {
  const counts = new Map<string, number>();
  for (const r of requests) counts.set(r.kind, (counts.get(r.kind) ?? 0) + 1);
  const kinds = [...counts.keys()].sort();
  const parts = kinds.map((k) => `${k} ${((counts.get(k) ?? 0) / jobs).toFixed(2)}`);
  return `${(requests.length / jobs).toFixed(2)} (${parts.join(', ')})`;
}

/** A log line of a traced round: when it was written and what it says. */
interface TracedLine {
  at: number;
  msg: string;
  job: string | undefined;
}

/** An info-level logger whose lines are kept in memory, stamped as they are written. */
export class TraceLog {
  private readonly lines: { at: number; text: string }[] = [];
  readonly logger: Logger = createLogger({
    level: 'info',
    destination: { write: (text: string) => void this.lines.push({ at: performance.now(), text }) },
  });

  /** The lines written at or after `from`, parsed. */
  since(from: number): TracedLine[] {
    return this.lines
      .filter((l) => l.at >= from)
      .map((l) => {
        const parsed = JSON.parse(l.text) as { msg?: string; job?: string };
        return { at: l.at, msg: parsed.msg ?? '', job: parsed.job };
      });
  }
}

/** The steps of a job the trace can see, in path order, by the log line that marks them. */
const STEPS: [label: string, msg: string][] = [
  ['job created in the cloud', 'job created'],
  ['offer recorded by the agent', 'job received'],
  ['claimed', 'job claimed'],
  ['sent to the printer', 'submitted to the printer'],
  ['completed at the agent', 'job completed'],
  ['ended in the cloud', 'job ended'],
];

/** The first, median and last of times, as ms after t0. */
function spread(times: number[], t0: number): string {
  if (times.length === 0) return 'none';
  const sorted = [...times].sort((a, b) => a - b);
  const at = (v: number) => (v - t0).toFixed(1).padStart(7);
  return `${at(sorted[0]!)} ${at(median(sorted))} ${at(sorted.at(-1)!)}  (${sorted.length})`;
}

/**
 * The table of one traced round: per step, first / median / last job, ms after t0; the requests
 * of kind `release` (PrintJob) also by start and end, and the arrivals at the printer.
 */
export function phaseTable(
  lines: TracedLine[],
  requests: ServedRequest[],
  arrivals: number[],
  t0: number,
): string[] {
  const out = ['  step                                first  median    last  (count), ms after the start'];
  const row = (label: string, times: number[]) => out.push(`  ${label.padEnd(34)}${spread(times, t0)}`);
  for (const kind of [...new Set(requests.map((r) => r.kind))].filter((k) => k !== 'printer IPP')) {
    const of = requests.filter((r) => r.kind === kind);
    row(
      `${kind} request`,
      of.map((r) => r.start),
    );
    row(
      `${kind} answered`,
      of.flatMap((r) => (r.end === undefined ? [] : [r.end])),
    );
  }
  const session = lines.filter((l) => l.msg === 'release session started').map((l) => l.at);
  if (session.length > 0) row('release session started', session);
  for (const [label, msg] of STEPS) {
    row(label, firstPerJob(lines, msg));
    if (msg === 'submitted to the printer') row('at the printer (document file)', arrivals);
  }
  out.push(`  per job, median ms: ${stepDurations(lines).join(', ')}`);
  const gaps = answeredToNext(requests.filter((r) => r.kind === 'TPFM PrintJob'));
  if (gaps.length > 0)
    out.push(`  PrintJob answered -> next PrintJob sent, median ms: ${median(gaps).toFixed(1)}`);
  return out;
}

/** For requests in start order: the time from each one's end to the next one's start. */
function answeredToNext(requests: ServedRequest[]): number[] {
  const sorted = [...requests].sort((a, b) => a.start - b.start);
  const gaps: number[] = [];
  for (let i = 1; i < sorted.length; i++) {
    const end = sorted[i - 1]!.end;
    if (end !== undefined) gaps.push(sorted[i]!.start - end);
  }
  return gaps;
}

/** The time each job's first line with `msg` was written. */
function firstPerJob(lines: TracedLine[], msg: string): number[] {
  const seen = new Map<string, number>();
  for (const l of lines) if (l.msg === msg && l.job && !seen.has(l.job)) seen.set(l.job, l.at);
  return [...seen.values()];
}

/** The median time from each step to the next, per job. */
function stepDurations(lines: TracedLine[]): string[] {
  const byStep = STEPS.map(([, msg]) => {
    const seen = new Map<string, number>();
    for (const l of lines) if (l.msg === msg && l.job && !seen.has(l.job)) seen.set(l.job, l.at);
    return seen;
  });
  const out: string[] = [];
  for (let i = 1; i < STEPS.length; i++) {
    const gaps: number[] = [];
    for (const [job, at] of byStep[i]!) {
      const before = byStep[i - 1]!.get(job);
      if (before !== undefined) gaps.push(at - before);
    }
    out.push(`${STEPS[i - 1]![1]} -> ${STEPS[i]![1]} ${gaps.length ? median(gaps).toFixed(1) : '-'}`);
  }
  return out;
}
