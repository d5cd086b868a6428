/**
 * `printrelay emulator`: the cloud print service emulator on its own. Options: --listen
 * host:port (port 0 picks a free one), --db FILE or :memory:, --seed FILE (default: the demo
 * seed), --data-dir DIR (uploaded files; default ./.printrelay-emulator), --webhook-ca FILE (a
 * PEM CA that webhook receivers' certificates may chain to, besides the system CAs),
 * --webhook-timeout-ms N (the receivers' answer deadline; default 30000). Prints
 * `listening on <url>`; a signal closes it.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { defaultEmulatorSeed, loadEmulatorSeed } from '../../config/load-config.js';
import {
  addLogOptions,
  CliError,
  createCliLogger,
  type LogFlags,
  onShutdownSignals,
  parseIntegerOption,
  parseListenAddress,
} from '../cli-runtime.js';

interface EmulatorFlags extends LogFlags {
  listen: string;
  db?: string;
  seed?: string;
  dataDir: string;
  publicUrl?: string;
  webhookCa?: string;
  webhookTimeoutMs?: string;
}

/** Registers `emulator`. */
export function registerEmulatorCommand(program: Command): void {
  const command = program
    .command('emulator')
    .description('run the cloud print service emulator')
    .option('--listen <host:port>', 'address to listen on (port 0: any free port)', '127.0.0.1:8080')
    .option('--db <file>', 'SQLite database file or :memory: (default: <data-dir>/emulator.db)')
    .option('--seed <file>', 'seed YAML for a fresh database (default: the built-in demo seed)')
    .option('--data-dir <dir>', 'where uploaded files are kept', '.printrelay-emulator')
    .option('--public-url <url>', 'base URL clients reach the emulator at (for upload URLs)')
    .option('--webhook-ca <file>', 'PEM file of an extra CA to trust for webhook receivers')
    .option('--webhook-timeout-ms <ms>', 'how long a webhook receiver may take to answer', '30000');
  addLogOptions(command).action(async (flags: EmulatorFlags) => runEmulator(flags));
}

async function runEmulator(flags: EmulatorFlags): Promise<void> {
  const { host, port } = parseListenAddress(flags.listen);
  const webhooks = webhookOptions(flags);
  const seed = flags.seed ? loadEmulatorSeed(flags.seed) : defaultEmulatorSeed();
  const { logger, redactor } = createCliLogger(flags);
  registerSeedSecrets(seed, redactor);
  const dataDir = resolve(flags.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const db = flags.db ?? join(dataDir, 'emulator.db');
  const { createEmulator } = await import('../../emulator/app.js');
  const emulator = await createEmulator({
    db,
    dataDir,
    seed,
    logger,
    ...(flags.publicUrl ? { publicUrl: flags.publicUrl } : {}),
    webhooks,
  });
  let url: string;
  try {
    url = await emulator.listen(host, port);
  } catch (error) {
    await emulator.close();
    throw listenError(error, host, port, '--listen');
  }
  process.stdout.write(`listening on ${url}\n`);
  onShutdownSignals(() => emulator.close(), { logger, stoppedLine: 'stopped: the emulator is down' });
}

/** The webhook options of the flags; CliError naming the flag for a bad value. */
export function webhookOptions(flags: { webhookCa?: string; webhookTimeoutMs?: string }): {
  extraCaPem?: string;
  timeoutMs: number;
} {
  const timeoutMs = parseIntegerOption(
    '--webhook-timeout-ms',
    flags.webhookTimeoutMs ?? '30000',
    100,
    300_000,
  );
  if (!flags.webhookCa) return { timeoutMs };
  let pem: string;
  try {
    pem = readFileSync(flags.webhookCa, 'utf8');
  } catch (error) {
    throw new CliError(
      `--webhook-ca: cannot read ${flags.webhookCa} (${(error as NodeJS.ErrnoException).code})`,
    );
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----'))
    throw new CliError(`--webhook-ca: ${flags.webhookCa} holds no PEM certificate (BEGIN CERTIFICATE)`);
  return { extraCaPem: pem, timeoutMs };
}

/** Registers every password and client secret of a seed with the log redactor. */
export function registerSeedSecrets(
  seed: import('../../config/emulator-seed-schema.js').EmulatorSeed,
  redactor: { add(secret: string | undefined): void },
): void {
  for (const org of seed.organizations) {
    for (const user of org.users) redactor.add(user.password);
    for (const client of org.oauth_clients) redactor.add(client.client_secret);
    for (const printer of org.printers) redactor.add(printer.pull_printing_password);
  }
}

/** A clear error for a port that cannot be used (taken, or not allowed). */
export function listenError(error: unknown, host: string, port: number, option: string): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') {
    return new CliError(
      `port ${port} on ${host} is already in use: stop what uses it or choose another with ${option}`,
    );
  }
  if (code === 'EACCES')
    return new CliError(`not allowed to listen on ${host}:${port}: choose another with ${option}`);
  return error instanceof Error ? error : new Error(String(error));
}
