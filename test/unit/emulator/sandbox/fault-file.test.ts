/** Fault scenario files: rules read from YAML, every issue placed at its line and column. */
import { describe, expect, it } from 'vitest';
import { type ConfigError, formatIssue } from '../../../../src/config/config-error.js';
import { parseFaultFile } from '../../../../src/emulator/sandbox/faults/fault-file.js';

const issuesOf = (text: string): string[] => {
  try {
    parseFaultFile(text, 'faults.yaml');
  } catch (error) {
    return (error as ConfigError).issues.map(formatIssue);
  }
  throw new Error('the file was accepted');
};

describe('fault scenario files', () => {
  it('reads the rules', () => {
    const text = [
      'version: 1',
      'faults:',
      '  - operation: Print',
      '    respond: { status: 429, headers: { Retry-After: 5 } }',
      '    times: 1',
      '  - printer: 6f1c0e5e-0000-4000-8000-000000000001',
      '    end_job: { error_code: 3011 }',
    ].join('\n');
    expect(parseFaultFile(text, 'faults.yaml')).toEqual([
      {
        scope: { operation: 'Print' },
        action: { kind: 'respond', status: 429, headers: { 'retry-after': '5' }, body: undefined },
        times: 1,
      },
      {
        scope: { printer: '6f1c0e5e-0000-4000-8000-000000000001' },
        action: { kind: 'end_job', errorCode: 3011 },
      },
    ]);
  });

  it('names every issue with its line and column', () => {
    const text = [
      'version: 2',
      'faults:',
      '  - operation: Print',
      '    respond: { status: 700 }',
      '    colour: red',
      '  - latency_ms: -1',
      'extra: true',
    ].join('\n');
    expect(issuesOf(text)).toEqual([
      'faults.yaml:7:1: extra: unknown key (known: version, faults)',
      'faults.yaml:1:10: version: must be 1',
      'faults.yaml:5:5: faults[0].colour: unknown key (known: operation, printer, user, client, connector, endpoint, respond, latency_ms, cut, slow_chunks_ms, end_job, printer_state, drop_connector, webhook_status, times, duration_s)',
      'faults.yaml:4:24: faults[0].respond.status: must be an HTTP status from 200 to 599',
      'faults.yaml:6:17: faults[1].latency_ms: must be a whole number of milliseconds from 1 to 300000',
    ]);
  });

  it('reports syntax errors and repeated keys at their place', () => {
    expect(issuesOf('version: 1\nfaults: [\n')[0]).toMatch(/^faults\.yaml:\d+:\d+: \(yaml\): /);
    expect(issuesOf('version: 1\nversion: 1\nfaults: []\n')).toEqual([
      'faults.yaml:2:1: version: duplicate key (first set on line 1)',
    ]);
  });
});
