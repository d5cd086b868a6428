/**
 * Printer-MIB counters over SNMP (net-snmp; v1, v2c, or v3 with auth and privacy):
 * prtMarkerLifeCount for impressions, plus the colour, sheet and two-sided counters the device
 * has under the OIDs configured for it. One UDP session per source, opened on the first read and
 * closed by close(). Community and keys are secrets: they never reach a log line or an error.
 * net-snmp is imported on the first read, so an agent whose YAML names no SNMP source never
 * loads it.
 */
import type snmp from 'net-snmp';
import { PrintRelayError } from '../../lib/errors.js';
import type { SnmpSourceConfig } from '../../config/copy-jobs-schema.js';
import type { CounterSnapshot } from './copy-counting.js';
import type { CounterSource } from './counter-source.js';

/** The device's SNMP agent did not answer, or answered without a counter. */
export class SnmpReadError extends PrintRelayError {
  constructor(message: string) {
    super('snmp_read', message);
  }
}

type Field = 'impressions' | 'color' | 'sheets' | 'duplexSheets';

/** The OIDs to read, by counter, from the configuration. */
function oidsOf(config: SnmpSourceConfig): [Field, string][] {
  const list: [Field, string | undefined][] = [
    ['impressions', config.total_oid],
    ['color', config.color_oid],
    ['sheets', config.sheets_oid],
    ['duplexSheets', config.duplex_oid],
  ];
  return list
    .filter((e): e is [Field, string] => e[1] !== undefined)
    .map(([f, o]) => [f, o.replace(/^\./, '')]);
}

type NetSnmp = typeof snmp;

/** The net-snmp module, imported once on first use. */
let netSnmp: Promise<NetSnmp> | undefined;
function loadNetSnmp(): Promise<NetSnmp> {
  netSnmp ??= import('net-snmp').then((module) => module.default);
  return netSnmp;
}

/** Opens a net-snmp session for the configuration (v3: user with auth/priv as configured). */
function openSession(snmp: NetSnmp, config: SnmpSourceConfig): snmp.Session {
  const options = { port: config.port, timeout: config.timeout_ms, retries: 1 };
  if (config.version !== '3') {
    const version = config.version === '1' ? snmp.Version1 : snmp.Version2c;
    return snmp.createSession(config.host, config.community, { ...options, version });
  }
  const level = snmp.SecurityLevel[config.security_level];
  const user: snmp.User = { name: config.user ?? '', level };
  if (level !== snmp.SecurityLevel.noAuthNoPriv) {
    user.authProtocol = snmp.AuthProtocols[config.auth_protocol];
    user.authKey = config.auth_key;
  }
  if (level === snmp.SecurityLevel.authPriv) {
    user.privProtocol = snmp.PrivProtocols[config.priv_protocol];
    user.privKey = config.priv_key;
  }
  return snmp.createV3Session(config.host, user, { ...options, version: snmp.Version3 });
}

/** A counter value as a safe integer, or undefined (missing object, error varbind). */
function counterValue(snmp: NetSnmp, varbind: snmp.Varbind): number | undefined {
  if (snmp.isVarbindError(varbind)) return undefined;
  const value = typeof varbind.value === 'bigint' ? Number(varbind.value) : varbind.value;
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** See the file comment. */
export class SnmpCounterSource implements CounterSource {
  readonly kind = 'snmp' as const;
  readonly includesReleased = true;
  private session: snmp.Session | undefined;
  private readonly oids: [Field, string][];

  constructor(private readonly config: SnmpSourceConfig) {
    this.oids = oidsOf(config);
  }

  /** One GET of every configured counter; throws SnmpReadError without impressions. */
  async read(signal?: AbortSignal): Promise<CounterSnapshot> {
    signal?.throwIfAborted();
    const snmp = await loadNetSnmp();
    signal?.throwIfAborted();
    this.session ??= openSession(snmp, this.config);
    const varbinds = await this.get(this.session);
    const snapshot: Partial<CounterSnapshot> = {};
    this.oids.forEach(([field, oid], i) => {
      const value = varbinds[i] && counterValue(snmp, varbinds[i]);
      if (value !== undefined) snapshot[field] = value;
      else if (field === 'impressions') throw new SnmpReadError(`SNMP ${this.where()}: no counter at ${oid}`);
    });
    return snapshot as CounterSnapshot;
  }

  async close(): Promise<void> {
    this.session?.close();
    this.session = undefined;
  }

  private get(session: snmp.Session): Promise<snmp.Varbind[]> {
    return new Promise((resolve, reject) => {
      session.get(
        this.oids.map(([, oid]) => oid),
        (error, varbinds) => {
          if (error) {
            // A broken session (timeout, auth failure) is reopened on the next read.
            this.session?.close();
            this.session = undefined;
            reject(new SnmpReadError(`SNMP ${this.where()}: ${(error as Error).message}`));
          } else resolve(varbinds ?? []);
        },
      );
    });
  }

  private where(): string {
    return `${this.config.host}:${this.config.port} (v${this.config.version})`;
  }
}
