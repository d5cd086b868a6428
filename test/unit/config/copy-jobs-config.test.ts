import { describe, expect, it } from 'vitest';
import { ConfigError, parseAgentConfig } from '../../../src/config/load-config.js';

const base = `cloud:
  url: http://127.0.0.1:8080
  client_id: demo-app
release_stations:
  - name: front
    reader: "socket://127.0.0.1:4711"
    printer: Demo Printer
    pull_url: http://127.0.0.1:8080
    password: secret
`;

function errors(text: string): string[] {
  try {
    parseAgentConfig(text, 'agent.yaml', { env: {} });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message.split('\n');
  }
  throw new Error('expected a ConfigError');
}

describe('copy_jobs of a release station', () => {
  it('fills defaults of a valid SNMPv3 source', () => {
    const config = parseAgentConfig(
      `${base}    copy_jobs:\n      sources: [snmp, http]\n      snmp:\n        host: 127.0.0.1\n        version: "3"\n        user: copier\n        auth_key: authpass1\n        priv_key: privpass1\ncopy_events:\n  port: 0\n`,
      'agent.yaml',
      { env: {} },
    );
    expect(config.release_stations[0]?.copy_jobs).toEqual({
      sources: ['snmp', 'http'],
      snmp: {
        host: '127.0.0.1',
        port: 161,
        version: '3',
        community: 'public',
        user: 'copier',
        security_level: 'authPriv',
        auth_protocol: 'sha',
        auth_key: 'authpass1',
        priv_protocol: 'aes',
        priv_key: 'privpass1',
        total_oid: '1.3.6.1.2.1.43.10.2.1.4.1.1',
        timeout_ms: 2000,
      },
      poll_interval_s: 5,
      session_timeout_s: 180,
      paper_id: 9,
    });
    expect(config.copy_events).toEqual({ host: '127.0.0.1', port: 0, max_failures: 5, lockout_s: 60 });
  });

  it('names every field a listed source lacks', () => {
    expect(errors(`${base}    copy_jobs:\n      sources: [snmp, ipp, http]\n`)).toEqual([
      'agent.yaml:11:17: release_stations[0].copy_jobs.sources[0]: snmp needs the snmp section',
      'agent.yaml:11:23: release_stations[0].copy_jobs.sources[1]: ipp needs ipp_uri',
      'agent.yaml:11:28: release_stations[0].copy_jobs.sources[2]: http needs the top-level copy_events section',
    ]);
    expect(
      errors(
        `${base}    copy_jobs:\n      sources: [snmp]\n      snmp:\n        host: h\n        version: "3"\n`,
      ),
    ).toEqual([
      'agent.yaml:12:7: release_stations[0].copy_jobs.snmp.auth_key: is required for security_level authPriv',
      'agent.yaml:12:7: release_stations[0].copy_jobs.snmp.priv_key: is required for security_level authPriv',
      'agent.yaml:12:7: release_stations[0].copy_jobs.snmp.user: is required for SNMP version 3',
    ]);
    expect(errors(`${base}    copy_jobs:\n      sources: [fax]\n`)).toEqual([
      'agent.yaml:11:17: release_stations[0].copy_jobs.sources[0]: must be one of: "snmp", "ipp", "http"',
    ]);
  });
});
