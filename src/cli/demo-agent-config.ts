/**
 * The agent configuration `printrelay demo` runs with: the demo admin's connector, the one
 * virtual printer and, when asked, the demo's release station. Pure: builds and checks the
 * configuration, writes nothing.
 */
import { stringify } from 'yaml';
import type { AgentConfig } from '../config/agent-schema.js';
import { DEMO, parseAgentConfig } from '../config/load-config.js';

/** What the demo's release station may differ in. */
export interface DemoReleaseOptions {
  reader: string;
  /** Only PRINTRELAY_RELEASE_STATIONS__* variables are applied. */
  env?: Record<string, string | undefined>;
}

/**
 * The agent configuration of the demo: the admin's connector (paired by the pairing-code grant,
 * so no username or password) with the one virtual printer and,
 * given release options, a release station at "Demo Printer" with the seed's device password.
 */
export function demoAgentConfig(
  url: string,
  printerUri: string,
  release?: DemoReleaseOptions,
  caFile?: string,
  local: { controlPort?: number; dataDir?: string } = {},
): AgentConfig {
  const raw = {
    version: 1,
    ...(local.dataDir ? { data_dir: local.dataDir } : {}),
    ...(local.controlPort ? { control: { port: local.controlPort } } : {}),
    cloud: {
      url,
      client_id: DEMO.client.id,
      client_secret: DEMO.client.secret,
      ...(caFile ? { ca_file: caFile } : {}),
    },
    connector: { name: 'Demo Connector', description: 'The connector of printrelay demo' },
    jobs: { retry_initial_ms: 200, status_poll_ms: 100 },
    printers: [{ name: DEMO.printer.name, uri: printerUri, location: 'Demo desk' }],
    release_stations: release
      ? [
          {
            name: 'Demo release station',
            reader: release.reader,
            printer: DEMO.printer.name,
            pull_url: url,
            password: DEMO.printer.pullPrintingPassword,
            mode: 'all',
          },
        ]
      : [],
  };
  const env = Object.fromEntries(
    Object.entries(release?.env ?? {}).filter(([name]) => name.startsWith('PRINTRELAY_RELEASE_STATIONS__')),
  );
  return parseAgentConfig(stringify(raw), '<demo agent configuration>', { env });
}
