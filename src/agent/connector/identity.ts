/**
 * The facts a connector registers with: host name, internal IPs, OS type and version (read with
 * systeminformation), and the package's version as sw_version. Pure mapping in
 * `toRegistration`; `readHostFacts` does the I/O.
 */
import si from 'systeminformation';
import type { AgentConfig } from '../../config/agent-schema.js';
import type { ConnectorRegistration, OsType } from '../../protocol/connector-channel.js';

/** What the host says about itself. */
export interface HostFacts {
  hostname: string;
  internalIps: string[];
  platform: string;
  osRelease: string;
  distro: string;
}

/** Reads the host facts; no cleanup needed. */
export async function readHostFacts(): Promise<HostFacts> {
  const [os, interfaces] = await Promise.all([si.osInfo(), si.networkInterfaces()]);
  const list = Array.isArray(interfaces) ? interfaces : [interfaces];
  const internalIps = list.filter((i) => !i.internal && i.ip4).map((i) => i.ip4);
  return {
    hostname: os.hostname,
    internalIps,
    platform: os.platform,
    osRelease: os.release,
    distro: os.distro,
  };
}

/** Maps a platform name to the connector os_type. */
export function osType(platform: string): OsType {
  return /^win/i.test(platform) ? 'Windows' : 'Linux';
}

/** Builds the registration body from config, facts and the stable serial. Pure. */
export function toRegistration(
  config: AgentConfig,
  facts: HostFacts,
  serial: string,
  swVersion: string,
): ConnectorRegistration {
  return {
    serial_string: serial,
    type: config.connector.type,
    readable_name: config.connector.name ?? facts.hostname,
    description: config.connector.description,
    hostname: facts.hostname,
    internal_ip: facts.internalIps[0] ?? null,
    external_ip: null,
    os_type: osType(facts.platform),
    sw_version: swVersion,
    location: config.connector.location ?? null,
    management_url: null,
    supported_formats: 'PDF,RAW',
  };
}
