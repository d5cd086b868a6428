/**
 * Runs Debian's snmpd for tests: unprivileged port on 127.0.0.1, community `public` (v1/v2c)
 * and an SNMPv3 user with SHA authentication and AES privacy, and the Printer-MIB subtree
 * (.1.3.6.1.2.1.43) served by a pass_persist script (test/fixtures/snmp) from a counters file
 * the test rewrites with setCounters(). stop() ends snmpd by its process id and removes the
 * temporary directory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { which } from './peers.js';

/** prtMarkerLifeCount of device 1, marker 1. */
export const PRT_MARKER_LIFE_COUNT = '1.3.6.1.2.1.43.10.2.1.4.1.1';
/** Counters a test serves besides it (vendor-style OIDs under the Printer-MIB subtree). */
export const TEST_COLOR_OID = '1.3.6.1.2.1.43.10.2.1.4.1.2';
export const TEST_DUPLEX_OID = '1.3.6.1.2.1.43.10.2.1.4.1.3';

/** The SNMPv3 user snmpd knows. */
export const SNMP_V3_USER = { user: 'copier', authKey: 'auth-pass-123', privKey: 'priv-pass-123' };

export interface RunningSnmpd {
  port: number;
  /** Writes the served counters (OID without leading dot -> Counter32 value). */
  setCounters(values: Record<string, number>): void;
  stop(): Promise<void>;
}

async function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((done) => socket.bind(0, '127.0.0.1', done));
  const { port } = socket.address();
  await new Promise<void>((done) => socket.close(() => done()));
  return port;
}

/** Starts snmpd; the caller stops it. */
export async function startSnmpd(initial: Record<string, number>): Promise<RunningSnmpd> {
  const binary = which('snmpd');
  if (!binary) throw new Error('snmpd not found (apt-get install snmpd)');
  const dir = mkdtempSync(join(tmpdir(), 'snmpd-'));
  const port = await freeUdpPort();
  const counters = join(dir, 'counters.txt');
  const setCounters = (values: Record<string, number>) => {
    const lines = Object.entries(values).map(([oid, value]) => `.${oid} counter ${value}\n`);
    writeFileSync(`${counters}.new`, lines.join(''));
    renameSync(`${counters}.new`, counters);
  };
  setCounters(initial);
  const script = resolve('test/fixtures/snmp/printer-mib-counters.sh');
  const conf = join(dir, 'snmpd.conf');
  writeFileSync(
    conf,
    [
      `agentAddress udp:127.0.0.1:${port}`,
      'rocommunity public 127.0.0.1',
      `createUser ${SNMP_V3_USER.user} SHA "${SNMP_V3_USER.authKey}" AES "${SNMP_V3_USER.privKey}"`,
      `rouser ${SNMP_V3_USER.user} priv`,
      `pass_persist .1.3.6.1.2.1.43 /bin/sh ${script} ${counters}`,
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(binary, ['-f', '-Lo', '-C', '-c', conf, '-p', join(dir, 'snmpd.pid')], {
    env: { ...process.env, SNMP_PERSISTENT_DIR: join(dir, 'persist'), MIBS: '' },
    stdio: 'ignore',
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return {
    port,
    setCounters,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
