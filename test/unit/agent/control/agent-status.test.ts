import { describe, expect, it } from 'vitest';
import {
  type AgentStatus,
  CloudContact,
  RecentErrors,
  readiness,
} from '../../../../src/agent/control/agent-status.js';

function status(overrides: Partial<AgentStatus> = {}): AgentStatus {
  return {
    version: '0.1.0',
    pid: 42,
    startedAt: '2026-01-01T00:00:00.000Z',
    uptimeS: 5,
    cloud: { url: 'https://cloud.test', channel: 'websocket', connected: true, reachable: true },
    connector: { registered: true, id: 'c-1' },
    token: { valid: true, expiresAt: '2026-01-01T01:00:00.000Z' },
    printers: [
      { name: 'A', uri: 'ipp://a/ipp/print', cloudId: 'p-a', state: 'idle' },
      { name: 'B', uri: 'ipp://b/ipp/print', cloudId: 'p-b', state: 'processing' },
    ],
    jobs: { inFlight: 0, list: [] },
    outbox: { depth: 0, oldestAgeS: 0 },
    readers: [],
    lastErrors: [],
    ...overrides,
  };
}

describe('readiness', () => {
  it('is ready with every check passing and lists printer states', () => {
    expect(readiness(status())).toEqual({
      ready: true,
      reasons: [],
      checks: { registered: true, tokenValid: true, cloudReachable: true },
      printers: [
        { name: 'A', state: 'idle' },
        { name: 'B', state: 'processing' },
      ],
    });
  });

  it.each([
    [{ connector: { registered: false } }, ['the connector is not registered with the cloud yet']],
    [
      { token: { valid: false, problem: 'no token stored' } },
      ['the access token is not valid: no token stored'],
    ],
    [
      {
        cloud: {
          url: 'u',
          channel: 'poll' as const,
          connected: false,
          reachable: false,
          lastError: 'ECONNREFUSED',
        },
      },
      ['the cloud is not reachable: ECONNREFUSED'],
    ],
  ])('is not ready when %j', (override, reasons) => {
    const result = readiness(status(override as Partial<AgentStatus>));
    expect(result.ready).toBe(false);
    expect(result.reasons).toEqual(reasons);
  });

  it('one unreachable printer is a reason but keeps the agent ready; all of them make it not ready', () => {
    const one = status();
    one.printers[0]!.state = 'unreachable';
    expect(readiness(one)).toMatchObject({ ready: true, reasons: ['printer A is unreachable'] });
    one.printers[1]!.state = 'unreachable';
    expect(readiness(one)).toMatchObject({
      ready: false,
      reasons: ['printer A is unreachable', 'printer B is unreachable'],
    });
  });
});

describe('CloudContact', () => {
  it('is unreachable before any answer, reachable after one, and follows the latest outcome', () => {
    const contact = new CloudContact();
    expect([contact.reachable, contact.lastError]).toEqual([false, undefined]);
    contact.ok(1000);
    expect([contact.reachable, contact.lastContactAt]).toEqual([true, 1000]);
    contact.failed(2000, 'ECONNRESET');
    expect([contact.reachable, contact.lastError, contact.lastContactAt]).toEqual([
      false,
      'ECONNRESET',
      1000,
    ]);
    contact.ok(3000);
    expect([contact.reachable, contact.lastError]).toEqual([true, undefined]);
  });
});

describe('RecentErrors', () => {
  it('keeps the newest entries up to its limit, oldest first', () => {
    const errors = new RecentErrors(2);
    errors.add(0, 'job', 'one');
    errors.add(1000, 'sync', 'two');
    errors.add(2000, 'token', 'three');
    expect(errors.list()).toEqual([
      { at: '1970-01-01T00:00:01.000Z', part: 'sync', message: 'two' },
      { at: '1970-01-01T00:00:02.000Z', part: 'token', message: 'three' },
    ]);
  });
});
