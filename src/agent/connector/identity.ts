/**
 * The facts a connector registers with: host name, internal IPs, OS type and version (read with
 * node:os, and the distribution's name from /etc/os-release where there is one), and the
 * package's version as sw_version. Pure mapping in `toRegistration`; `readHostFacts` does the I/O.
 * node:os answers what registration needs without a process or library of its own, so the agent
 * keeps no host-inventory library resident.
 */
import { readFile } from 'node:fs/promises';
import { hostname, networkInterfaces, platform, release, version } from 'node:os';
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
  // one address per interface: its first IPv4 one, loopback left out
  const internalIps: string[] = [];
  for (const addresses of Object.values(networkInterfaces())) {
    const ip4 = addresses?.find((a) => a.family === 'IPv4' && !a.internal);
    if (ip4) internalIps.push(ip4.address);
  }
  return {
    hostname: hostname(),
    internalIps,
    platform: platform(),
    osRelease: release(),
    distro: (await distroName()) ?? version(),
  };
}

/** PRETTY_NAME of /etc/os-release (Linux), else undefined. */
async function distroName(): Promise<string | undefined> {
  const text = await readFile('/etc/os-release', 'utf8').catch(() => '');
  const value = /^PRETTY_NAME=(.*)$/m.exec(text)?.[1];
  return value?.replace(/^"(.*)"$/, '$1');
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
