/**
 * `printrelay demo [--port N] [--data-dir DIR] [--tls]` (what `npm start` runs): emulator, virtual
 * printer and agent in one process on 127.0.0.1:N (default 8080), everything stored under DIR
 * (default ./.printrelay-demo; printed documents in DIR/printed). With --tls the emulator serves
 * HTTPS with a self-signed certificate kept in DIR/tls (or --tls-cert/--tls-key), which the
 * demo's agent trusts through cloud.ca_file. Prints the URLs, the demo credentials and a curl
 * sequence, then a line starting with `ready`. The demo's emulator lets fileurl and webhooks
 * reach loopback (a developer's local file server or receiver) besides public addresses;
 * --allow-outbound adds more ranges; --webhook-ca FILE and --webhook-timeout-ms N are those of
 * `printrelay emulator` (a private CA of webhook receivers, their answer deadline).
 */
import { resolve } from 'node:path';
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
import { addCorsOption, type CorsFlags, corsOriginsOf } from '../cors-flags.js';
import { demoBanner, shellWord } from '../demo-banner.js';
import { DEMO_OUTBOUND_ALLOW, DemoStack } from '../demo-stack.js';
import { addOutboundOption, type OutboundFlags, outboundAllowOf } from '../outbound-flags.js';
import {
  addServingOptions,
  registerSeedSecrets,
  type ServingFlags,
  servingOptions,
  tlsOf,
  webhookOptions,
} from './emulator.js';

interface DemoFlags extends LogFlags, ServingFlags, OutboundFlags, CorsFlags {
  port: string;
  dataDir: string;
  replacePrinter?: boolean;
  webhookCa?: string;
  webhookTimeoutMs?: string;
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
    .option(
      '--webhook-ca <file>',
      'PEM file of an extra CA to trust for webhook receivers (docs/emulator.md)',
    )
    .option('--webhook-timeout-ms <ms>', 'how long a webhook receiver may take to answer', '30000')
    .option(
      '--replace-printer',
      'delete a printer named "Demo Printer" that another connector owns, so the demo registers its own',
    );
  addServingOptions(command);
  addOutboundOption(command, 'loopback is allowed in the demo');
  addCorsOption(command);
  addLogOptions(command, 'warn').action(async (flags: DemoFlags) => runDemo(flags));
}

/** This command line again with --replace-printer, as one shell line run in the checkout. */
function replaceCommand(): string {
  const args = process.argv.slice(2).filter((a) => a !== '--replace-printer');
  return ['node', 'bin/printrelay.js', ...args, '--replace-printer'].map(shellWord).join(' ');
}

async function runDemo(flags: DemoFlags): Promise<void> {
  const port = parseIntegerOption('--port', flags.port, 0, 65535);
  const { logger, redactor } = createCliLogger(flags, { level: 'warn' });
  registerSeedSecrets(defaultEmulatorSeed(), redactor);
  const outboundAllow = await outboundAllowOf(flags, DEMO_OUTBOUND_ALLOW);
  const corsOrigins = await corsOriginsOf(flags);
  const tls = await tlsOf(flags, resolve(flags.dataDir));
  const { publicUrl, trustProxy } = servingOptions(flags, undefined);
  const webhooks = webhookOptions(flags);
  const stack = new DemoStack({
    host: '127.0.0.1',
    port,
    dataDir: flags.dataDir,
    logger,
    redactor,
    ...(publicUrl ? { publicUrl } : {}),
    ...(trustProxy ? { trustProxy } : {}),
    ...(tls ? { tls } : {}),
    ...(flags.replacePrinter ? { replacePrinter: true } : {}),
    replaceCommand: replaceCommand(),
    outboundAllow,
    corsOrigins,
    webhooks,
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
