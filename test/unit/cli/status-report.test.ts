import { describe, expect, it } from 'vitest';
import type { AgentStatus } from '../../../src/agent/control/agent-status.js';
import { duration, formatStatus } from '../../../src/cli/status-report.js';

const status: AgentStatus = {
  version: '0.1.0',
  pid: 4242,
  startedAt: '2026-01-01T00:00:00.000Z',
  uptimeS: 7384,
  cloud: {
    url: 'https://print.example.com',
    channel: 'websocket',
    connected: false,
    reachable: false,
    lastContactAt: '2026-01-01T02:00:00.000Z',
    lastError: 'GET https://print.example.com/connector/v1/poll: ECONNREFUSED',
  },
  connector: { registered: true, id: 'c-1' },
  token: { valid: true, expiresAt: '2026-01-01T03:00:00.000Z' },
  printers: [
    { name: 'Front Desk', uri: 'ipp://10.0.0.5/ipp/print', cloudId: 'p1', state: 'processing' },
    { name: 'Back', uri: 'cups://back', cloudId: 'p2', state: 'unreachable' },
  ],
  jobs: {
    inFlight: 1,
    list: [{ id: 'job-7', printer: 'Front Desk', state: 'submitted', attempts: 1, ageS: 75 }],
  },
  outbox: { depth: 4, oldestAgeS: 130 },
  readers: [
    {
      station: 'Desk',
      reader: 'serial:///dev/ttyUSB0',
      printer: 'Front Desk',
      state: 'retrying',
      problem: 'ENOENT',
      swipes: 3,
    },
  ],
  lastErrors: [{ at: '2026-01-01T01:59:00.000Z', part: 'job', message: 'job job-6 on Back failed: 3011' }],
};

describe('formatStatus', () => {
  it('renders every section', () => {
    expect(formatStatus(status, 'http://127.0.0.1:9631')).toEqual([
      'PrintRelay agent 0.1.0 (pid 4242), up 2 h 3 min, control API http://127.0.0.1:9631',
      'Ready:      no (the cloud is not reachable: GET https://print.example.com/connector/v1/poll: ECONNREFUSED; printer Back is unreachable)',
      'Cloud:      https://print.example.com, WebSocket down (polling meanwhile), NOT reachable: GET https://print.example.com/connector/v1/poll: ECONNREFUSED, last answer 2026-01-01T02:00:00.000Z',
      'Connector:  registered as c-1',
      'Token:      valid, access token expires 2026-01-01T03:00:00.000Z',
      'Printers (2):',
      '  Front Desk  processing   ipp://10.0.0.5/ipp/print',
      '  Back        unreachable  cups://back',
      'Jobs in flight: 1',
      '  job-7  Front Desk  submitted  attempts 1  1 min 15 s old',
      'Outbox:     4 waiting, oldest 2 min 10 s',
      'Readers (1):',
      '  Desk  serial:///dev/ttyUSB0  retrying  3 swipes  ENOENT',
      'Last errors: ',
      '  2026-01-01T01:59:00.000Z job: job job-6 on Back failed: 3011',
    ]);
  });

  it('says (none) for empty lists and names an invalid token', () => {
    const lines = formatStatus(
      {
        ...status,
        printers: [],
        readers: [],
        lastErrors: [],
        token: { valid: false, problem: 'no token stored' },
      },
      'u',
    );
    expect(lines).toContain('Token:      NOT valid: no token stored');
    expect(lines).toContain('Printers (0):');
    expect(lines[lines.indexOf('Printers (0):') + 1]).toBe('  (none)');
    expect(lines.at(-1)).toBe('Last errors: none');
  });
});

describe('duration', () => {
  it.each([
    [0, '0 s'],
    [59, '59 s'],
    [61, '1 min 1 s'],
    [3600, '1 h 0 min'],
    [90_061, '1 d 1 h'],
  ])('%d s -> %s', (s, text) => expect(duration(s)).toBe(text));

  it('marks a job waiting for its document, with why the last try failed', () => {
    const waiting = {
      ...status,
      jobs: {
        inFlight: 1,
        list: [
          {
            id: 'job-8',
            printer: 'Front Desk',
            state: 'spooled',
            attempts: 0,
            ageS: 5,
            lastError: 'GET /d: ECONNREFUSED',
            waitingFor: 'document' as const,
          },
        ],
      },
    };
    expect(formatStatus(waiting, 'u')).toContain(
      '  job-8  Front Desk  spooled (waiting for its document)  attempts 0  5 s old  GET /d: ECONNREFUSED',
    );
  });

  it.each([
    [1, 0, 'spooled (waiting for its document, 1 failed try, next in 0 s)'],
    [4, 75, 'spooled (waiting for its document, 4 failed tries, next in 1 min 15 s)'],
  ])("shows a waiting job's %d failed tries and its next try", (documentTries, nextTryInS, shown) => {
    const job = {
      id: 'job-9',
      printer: 'Front Desk',
      state: 'spooled',
      attempts: 0,
      ageS: 5,
      lastError: 'GET /d: 503',
      waitingFor: 'document' as const,
      documentTries,
      nextTryInS,
    };
    expect(formatStatus({ ...status, jobs: { inFlight: 1, list: [job] } }, 'u')).toContain(
      `  job-9  Front Desk  ${shown}  attempts 0  5 s old  GET /d: 503`,
    );
  });
});
