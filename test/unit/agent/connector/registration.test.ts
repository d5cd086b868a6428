import { describe, expect, it } from 'vitest';
import { osType, toRegistration } from '../../../../src/agent/connector/identity.js';
import { printerInput } from '../../../../src/agent/connector/registration.js';
import type { AgentConfig } from '../../../../src/config/agent-schema.js';
import { packageVersion } from '../../../../src/lib/package-version.js';
import type { PrinterDescription } from '../../../../src/printing/printer-backend.js';

const config = {
  version: 1,
  cloud: {
    url: 'http://127.0.0.1:1',
    client_id: 'c',
    client_secret: '',
    channel: 'websocket',
    poll_interval_s: 25,
    request_timeout_s: 30,
  },
  connector: { type: 'TPHub', description: 'front desk', location: 'Floor 2' },
  log: { level: 'info' },
  control: { enabled: false, bind: '127.0.0.1', port: 9631 },
  jobs: {
    retry_initial_ms: 1000,
    retry_max_ms: 60_000,
    give_up_after_s: 86_400,
    download_attempts: 10,
    status_poll_ms: 500,
  },
  printers: [],
  discovery: { cups: false, winspool: false, dnssd: false, interval_s: 300, allow: [], deny: [] },
  sync: { interval_s: 60, grace_period_h: 24, max_delete_share: 0.25 },
  release_stations: [],
} satisfies AgentConfig;

const facts = {
  hostname: 'box-1',
  internalIps: ['10.0.0.5', '10.0.0.6'],
  platform: 'linux',
  osRelease: '6.1',
  distro: 'Debian',
};

describe('connector identity', () => {
  it.each([
    ['linux', 'Linux'],
    ['win32', 'Windows'],
    ['Windows', 'Windows'],
    ['darwin', 'Linux'],
  ])('os type of %s is %s', (platform, expected) => {
    expect(osType(platform)).toBe(expected);
  });

  it('builds the registration from config, host facts and serial', () => {
    expect(toRegistration(config, facts, 'SN-9', '1.2.3')).toEqual({
      serial_string: 'SN-9',
      type: 'TPHub',
      readable_name: 'box-1',
      description: 'front desk',
      hostname: 'box-1',
      internal_ip: '10.0.0.5',
      external_ip: null,
      os_type: 'Linux',
      sw_version: '1.2.3',
      location: 'Floor 2',
      management_url: null,
      supported_formats: 'PDF,RAW',
    });
    expect(
      toRegistration({ ...config, connector: { ...config.connector, name: 'Hub' } }, facts, 's', 'v')
        .readable_name,
    ).toBe('Hub');
  });

  it('reads sw_version from package.json', () => {
    expect(packageVersion()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe('printerInput', () => {
  const description: PrinterDescription = {
    uri: 'ipp://p/ipp/print',
    name: 'p',
    makeAndModel: 'ACME LaserJet 9000',
    state: 'idle',
    stateReasons: [],
    deviceId: 'MFG:ACME;MDL:LaserJet 9000;',
    location: 'Lab',
    documentFormats: ['application/pdf'],
    attributes: {},
  };
  const entry = { name: 'Office', uri: 'ipp://p/ipp/print', enabled: true };

  it('describes a reachable printer Online with vendor, model and pnp id', () => {
    expect(printerInput(entry, 3, description, true)).toEqual({
      name: 'Office',
      status: 'Online',
      tp_id: 3,
      supported_formats: ['PDF', 'RAW'],
      location: 'Lab',
      vendor_name: 'ACME',
      model_name: 'LaserJet 9000',
      pnp_id: 'MFG:ACME;MDL:LaserJet 9000;',
    });
  });

  it('registers an unreachable printer Offline with the configured location', () => {
    expect(printerInput({ ...entry, location: 'Hall' }, 4, undefined, false)).toEqual({
      name: 'Office',
      status: 'Offline',
      tp_id: 4,
      supported_formats: ['PDF', 'RAW'],
      location: 'Hall',
    });
  });
});
