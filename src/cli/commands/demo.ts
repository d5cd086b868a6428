/**
 * `printrelay demo [--port N] [--data-dir DIR]` (what `npm start` runs): emulator, virtual
 * printer and agent in one process on 127.0.0.1:N (default 8080), everything stored under DIR
 * (default ./.printrelay-demo; printed documents in DIR/printed). Prints the URLs, the demo
 * credentials and a curl sequence, then a line starting with `ready`. The demo's emulator lets
 * fileurl and webhooks reach loopback (a developer's local file server or receiver) besides
 * public addresses; --allow-outbound adds more ranges.
 */
import type { Command } from 'commander';
import { defaultEmulatorSeed } from '../../config/demo-seed.js';
import { DEMO_DATA_DIR } from '../../config/paths.js';
import {
  addLogOptions,
  createCliLogger,
  type LogFlags,
  onShutdownSignals,
  parseIntegerOption,
} from '../cli-runtime.js';
import { demoBanner } from '../demo-banner.js';
import { DEMO_OUTBOUND_ALLOW, DemoStack } from '../demo-stack.js';
import { registerSeedSecrets, servingOptions } from './emulator.js';
import { addOutboundOption, type OutboundFlags, outboundAllowOf } from '../outbound-flags.js';
import { addCorsOption, type CorsFlags, corsOriginsOf } from '../cors-flags.js';

interface DemoFlags extends LogFlags, OutboundFlags, CorsFlags {
  port: string;
  dataDir: string;
  publicUrl?: string;
  trustProxy?: boolean;
}

/** Registers `demo`. */
export function registerDemoCommand(program: Command): void {
  const command = program
    .command('demo')
    .description('run emulator, virtual printer and agent together, ready to print')
    .option('--port <n>', 'emulator port on 127.0.0.1 (0: any free port)', '8080')
    .option('--data-dir <dir>', 'where the demo keeps everything', DEMO_DATA_DIR)
    .option(
      '--public-url <url>',
      'URL apps reach the emulator at (behind a reverse proxy); shown in the banner',
    )
    .option('--trust-proxy', 'honour X-Forwarded-Proto/Host/Port from a reverse proxy in front');
  addOutboundOption(command, 'loopback is allowed in the demo');
  addCorsOption(command);
  addLogOptions(command, 'warn').action(async (flags: DemoFlags) => runDemo(flags));
}

async function runDemo(flags: DemoFlags): Promise<void> {
  const port = parseIntegerOption('--port', flags.port, 0, 65535);
  const { logger, redactor } = createCliLogger(flags, { level: 'warn' });
  registerSeedSecrets(defaultEmulatorSeed(), redactor);
  const outboundAllow = await outboundAllowOf(flags, DEMO_OUTBOUND_ALLOW);
  const corsOrigins = await corsOriginsOf(flags);
  const stack = new DemoStack({
    host: '127.0.0.1',
    port,
    dataDir: flags.dataDir,
    logger,
    redactor,
    ...servingOptions(flags, undefined),
    outboundAllow,
    corsOrigins,
  });
  const starting = new AbortController();
  onShutdownSignals(
    async () => {
      starting.abort(new Error('stopped during start-up'));
      await stack.stop();
    },
    { logger, stoppedLine: `stopped: the demo is down; its data stays in ${flags.dataDir}` },
  );
  try {
    const info = await stack.start(starting.signal);
    process.stdout.write(demoBanner(info));
  } catch (error) {
    await stack.stop();
    throw error;
  }
}
