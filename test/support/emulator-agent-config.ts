/**
 * The agent.yaml of an integration test's agent against the emulator: the cloud section with the
 * demo organization's client and admin, a channel, a connector name, quick job retries, and the
 * printers; each test passes only what differs. Also the agent built from it and the first start
 * a test makes to learn a printer's cloud id.
 */
import { Agent } from '../../src/agent/agent.js';
import type { AgentConfig } from '../../src/config/agent-schema.js';
import { DEMO, parseAgentConfig } from '../../src/config/load-config.js';
import { silentLogger } from '../../src/log/logger.js';

export interface EmulatorAgentOptions {
  /** The emulator's base URL (or a proxy in front of it). */
  cloudUrl: string;
  /** Default `poll`. */
  channel?: 'websocket' | 'poll';
  connectorName: string;
  connectorDescription?: string;
  /**
   * Keys of the `jobs:` section, over the defaults (retry_initial_ms 50, retry_max_ms 200,
   * status_poll_ms 100).
   */
  jobs?: Record<string, number>;
  printers: { name: string; uri: string }[];
}

const DEFAULT_JOBS: Record<string, number> = { retry_initial_ms: 50, retry_max_ms: 200, status_poll_ms: 100 };

/** The `cloud:` section's lines with the demo organization's client and admin, at `url`. */
export function demoCloudLines(url: string): string[] {
  return [
    'cloud:',
    `  url: ${url}`,
    `  client_id: ${DEMO.client.id}`,
    `  client_secret: ${DEMO.client.secret}`,
    `  username: ${DEMO.admin.email}`,
    `  password: ${DEMO.admin.password}`,
  ];
}

/** The agent.yaml text of `options`. */
export function emulatorAgentYaml(options: EmulatorAgentOptions): string {
  const jobs = { ...DEFAULT_JOBS, ...options.jobs };
  return [
    'version: 1',
    ...demoCloudLines(options.cloudUrl),
    `  channel: ${options.channel ?? 'poll'}`,
    '  poll_interval_s: 1',
    'connector:',
    `  name: ${options.connectorName}`,
    ...(options.connectorDescription === undefined ? [] : [`  description: ${options.connectorDescription}`]),
    'jobs:',
    ...Object.entries(jobs).map(([key, value]) => `  ${key}: ${value}`),
    'printers:',
    ...options.printers.flatMap((p) => [`  - name: ${p.name}`, `    uri: ${p.uri}`]),
    '',
  ].join('\n');
}

/** The parsed config of `options` (no environment variables). */
export function emulatorAgentConfig(options: EmulatorAgentOptions): AgentConfig {
  return parseAgentConfig(emulatorAgentYaml(options), 'agent.yaml', { env: {} });
}

/** An agent (not started) of `options`, logging nothing, its data in `dataDir`. */
export function emulatorAgent(
  options: EmulatorAgentOptions & { dataDir: string; channelProtocol?: number },
): Agent {
  const { dataDir, channelProtocol, ...yamlOptions } = options;
  return new Agent({
    config: emulatorAgentConfig(yamlOptions),
    dataDir,
    logger: silentLogger(),
    ...(channelProtocol === undefined ? {} : { channelProtocol }),
  });
}

/**
 * Starts `agent` once (registering its connector and printers), returns the cloud id of the
 * printer `printerName` (undefined if it has none), and stops it.
 */
export async function firstCloudId(agent: Agent, printerName: string): Promise<string | undefined> {
  await agent.start();
  try {
    return agent.printers().find((p) => p.config.name === printerName)?.cloudId;
  } finally {
    await agent.stop();
  }
}
