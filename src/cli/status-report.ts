/**
 * The human text of `printrelay status`: the /status document of a running agent as short
 * aligned sections (cloud, connector, token, printers, jobs, outbox, readers, last errors).
 * Pure: the caller fetches the document and prints the lines.
 */
import { type AgentStatus, readiness } from '../agent/control/agent-status.js';

/** Jobs shown one per line; the rest are counted. */
const SHOWN_JOBS = 20;

/** The lines for one status document fetched from `url`. */
export function formatStatus(status: AgentStatus, url: string): string[] {
  const ready = readiness(status);
  const lines = [
    `PrintRelay agent ${status.version} (pid ${status.pid}), up ${duration(status.uptimeS)}, control API ${url}`,
    `Ready:      ${ready.ready ? 'yes' : 'no'}${ready.reasons.length ? ` (${ready.reasons.join('; ')})` : ''}`,
    `Cloud:      ${status.cloud.url}, ${cloudLine(status)}`,
    `Connector:  ${status.connector.registered ? `registered as ${status.connector.id}` : 'not registered yet'}`,
    `Token:      ${tokenLine(status)}`,
    `Printers (${status.printers.length}):`,
    ...table(status.printers.map((p) => [p.name, p.state, p.uri])),
    `Jobs in flight: ${status.jobs.inFlight}`,
    ...table(
      status.jobs.list
        .slice(0, SHOWN_JOBS)
        .map((j) => [
          j.id,
          j.printer,
          j.waitingFor === 'document' ? `${j.state} (waiting for its document${documentTries(j)})` : j.state,
          `attempts ${j.attempts}`,
          `${duration(j.ageS)} old`,
          j.lastError ?? '',
        ]),
    ),
  ];
  if (status.jobs.inFlight > SHOWN_JOBS) lines.push(`  ... and ${status.jobs.inFlight - SHOWN_JOBS} more`);
  lines.push(
    `Outbox:     ${status.outbox.depth} waiting${status.outbox.depth ? `, oldest ${duration(status.outbox.oldestAgeS)}` : ''}`,
    `Readers (${status.readers.length}):`,
    ...table(
      status.readers.map((r) => [r.station, r.reader, r.state, `${r.swipes} swipes`, r.problem ?? '']),
    ),
    `Last errors: ${status.lastErrors.length === 0 ? 'none' : ''}`,
    ...status.lastErrors.map((e) => `  ${e.at} ${e.part}: ${e.message}`),
  );
  return lines;
}

/** `, 3 failed tries, next in 8 s` for a job waiting for its document (nothing from an older agent). */
function documentTries(job: AgentStatus['jobs']['list'][number]): string {
  if (job.documentTries === undefined) return '';
  const tries = `${job.documentTries} failed ${job.documentTries === 1 ? 'try' : 'tries'}`;
  return job.nextTryInS === undefined ? `, ${tries}` : `, ${tries}, next in ${duration(job.nextTryInS)}`;
}

function cloudLine(status: AgentStatus): string {
  const { cloud } = status;
  const channel =
    cloud.channel === 'poll'
      ? 'jobs by long poll'
      : `WebSocket ${cloud.connected ? 'connected' : 'down (polling meanwhile)'}`;
  const reach = cloud.reachable
    ? 'reachable'
    : `NOT reachable${cloud.lastError ? `: ${cloud.lastError}` : ''}`;
  const contact = cloud.lastContactAt ? `, last answer ${cloud.lastContactAt}` : '';
  return `${channel}, ${reach}${contact}`;
}

function tokenLine(status: AgentStatus): string {
  const { token } = status;
  if (token.valid) return `valid${token.expiresAt ? `, access token expires ${token.expiresAt}` : ''}`;
  return `NOT valid${token.problem ? `: ${token.problem}` : ''}`;
}

/** Rows as indented columns padded to the widest cell; trailing empty cells dropped. */
function table(rows: string[][]): string[] {
  if (rows.length === 0) return ['  (none)'];
  const widths: number[] = [];
  for (const row of rows) {
    for (const [i, cell] of row.entries()) widths[i] = Math.max(widths[i] ?? 0, cell.length);
  }
  return rows.map((row) => `  ${row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ')}`.trimEnd());
}

/** 42 s, 3 min 5 s, 2 h 4 min, 3 d 1 h. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
}
