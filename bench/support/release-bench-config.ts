/**
 * The agent configuration of the release benches: the demo printer at `printerUri` and one
 * release station on `reader` releasing to it from the emulator at `url` (`parallel`: its
 * parallel_releases, else the default). Shared by the in-process rig and the split bench's agent.
 */
import type { AgentConfig } from '../../src/config/agent-schema.js';
import { DEMO } from '../../src/config/load-config.js';
import { demoAgentConfig } from '../../test/support/demo-session.js';

export function releaseBenchAgentConfig(
  url: string,
  printerUri: string,
  reader: string,
  parallel?: number,
): AgentConfig {
  return demoAgentConfig(url, {
    printers: [{ name: DEMO.printer.name, uri: printerUri }],
    release_stations: [
      {
        name: 'bench station',
        reader,
        printer: DEMO.printer.name,
        pull_url: url,
        password: DEMO.printer.pullPrintingPassword,
        idle_timeout_s: 600,
        ...(parallel === undefined ? {} : { parallel_releases: parallel }),
      },
    ],
  });
}
