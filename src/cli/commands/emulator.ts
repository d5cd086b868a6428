/**
 * `printrelay emulator`: the cloud print service emulator on its own. Options: --listen
 * host:port (port 0 picks a free one), --db FILE or :memory:, --seed FILE (default: the demo
 * seed), --data-dir DIR (uploaded files; default ./.printrelay-emulator), --webhook-ca FILE (a
 * PEM CA that webhook receivers' certificates may chain to, besides the system CAs),
 * --webhook-timeout-ms N (the receivers' answer deadline; default 30000), --allow-outbound CIDR
 * (private ranges fileurl and webhooks may reach; default none: public addresses only),
 * --registration-sheet-interval-s N (one registration sheet per unknown card per N s; 600),
 * --cors-origin ORIGIN (browser origins allowed besides registered redirect URLs), --faults FILE
 * (fault rules in force from the start), --no-faults (no console, fault switchboard or test
 * clock: a production-like start), --downloads-max / --downloads-max-per-org / --downloads-wait-ms
 * (document downloads at once: download-flags.ts). Subcommands `faults` and `clock` steer a running one
 * (emulator-sandbox.ts). Prints
 * `listening on <url>`; a signal closes it.
 */
import { CONNECTOR_PROTOCOL_VERSION, INLINE_DOCUMENT_MAX_BYTES } from '../../protocol/connector-channel.js';
import { readFileSync } from 'node:fs';
import { ensurePrivateDir } from '../../lib/private-paths.js';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { loadFaultFile } from '../../emulator/sandbox/faults/fault-file.js';
import { addSandboxCommands } from './emulator-sandbox.js';
import { loadEmulatorSeed } from '../../config/emulator-seed-config.js';
import { defaultEmulatorSeed } from '../../config/load-config.js';
import { readTlsFiles, selfSignedTls, type TlsMaterial } from '../tls-files.js';
import { addOutboundOption, type OutboundFlags, outboundAllowOf } from '../outbound-flags.js';
import { addCorsOption, type CorsFlags, corsOriginsOf } from '../cors-flags.js';
import { addDownloadOptions, type DownloadFlags, downloadLimitsOf } from '../download-flags.js';
import {
  addLogOptions,
  CliError,
  createCliLogger,
  type LogFlags,
  onShutdownSignals,
  parseIntegerOption,
  parseListenAddress,
} from '../cli-runtime.js';

interface EmulatorFlags extends LogFlags, OutboundFlags, CorsFlags, DownloadFlags {
  listen: string;
  db?: string;
  seed?: string;
  dataDir: string;
  publicUrl?: string;
  webhookCa?: string;
  webhookTimeoutMs?: string;
  registrationSheetIntervalS: string;
  trustProxy?: boolean;
  tls?: boolean;
  tlsCert?: string;
  tlsKey?: string;
  /** A scenario file with --faults FILE, false with --no-faults. */
  faults?: string | false;
  connectorProtocol: string;
  inlineDocumentMax: string;
}

/** Largest --inline-document-max: documents beyond a few MiB belong to the REST download. */
const MAX_INLINE_DOCUMENT_BYTES = 16 * 1024 * 1024;

/**
 * The connector channel's settings of the flags (--connector-protocol, --inline-document-max);
 * CliError naming the flag and its range for a bad value.
 */
export function channelSettings(flags: { connectorProtocol: string; inlineDocumentMax: string }): {
  maxProtocol: number;
  inlineDocumentBytes: number;
} {
  return {
    maxProtocol: parseIntegerOption(
      '--connector-protocol',
      flags.connectorProtocol,
      1,
      CONNECTOR_PROTOCOL_VERSION,
    ),
    inlineDocumentBytes: parseIntegerOption(
      '--inline-document-max',
      flags.inlineDocumentMax,
      0,
      MAX_INLINE_DOCUMENT_BYTES,
    ),
  };
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
    .option('--webhook-timeout-ms <ms>', 'how long a webhook receiver may take to answer', '30000')
    .option(
      '--registration-sheet-interval-s <s>',
      'at most one registration-code sheet per unknown card in this many seconds',
      '600',
    )
    .option(
      '--connector-protocol <n>',
      'highest connector channel protocol spoken (2 or 3 act as an older cloud)',
      String(CONNECTOR_PROTOCOL_VERSION),
    )
    .option(
      '--inline-document-max <bytes>',
      'largest document sent inline with its offer on a protocol-3 channel (0: none)',
      String(INLINE_DOCUMENT_MAX_BYTES),
    )
    .option('--faults <file>', 'fault rules (YAML: version: 1, faults: [...]) in force from the start')
    .option('--no-faults', 'no console, fault switchboard or test clock under /_emulator/ (production-like)');
  addServingOptions(command);
  addSandboxCommands(command);
  addOutboundOption(command, 'default: public addresses only');
  addCorsOption(command);
  addDownloadOptions(command);
  addLogOptions(command).action(async (flags: EmulatorFlags) => runEmulator(flags));
}

async function runEmulator(flags: EmulatorFlags): Promise<void> {
  const { host, port } = parseListenAddress(flags.listen);
  const webhooks = webhookOptions(flags);
  const seed = flags.seed ? loadEmulatorSeed(flags.seed) : defaultEmulatorSeed();
  const faults = typeof flags.faults === 'string' ? loadFaultFile(flags.faults) : [];
  const { logger, redactor } = createCliLogger(flags);
  registerSeedSecrets(seed, redactor);
  const dataDir = resolve(flags.dataDir);
  ensurePrivateDir(dataDir);
  const db = flags.db ?? join(dataDir, 'emulator.db');
  const tls = await tlsOf(flags, dataDir);
  const outboundAllow = await outboundAllowOf(flags);
  const corsOrigins = await corsOriginsOf(flags);
  const sheetIntervalS = parseIntegerOption(
    '--registration-sheet-interval-s',
    flags.registrationSheetIntervalS,
    0,
    7 * 24 * 3600,
  );
  const connectorChannel = channelSettings(flags);
  const downloads = downloadLimitsOf(flags);
  const { createEmulator } = await import('../../emulator/app.js');
  const emulator = await createEmulator({
    db,
    dataDir,
    seed,
    logger,
    connectorChannel,
    ...servingOptions(flags, tls),
    webhooks,
    outboundAllow,
    registrationSheetIntervalMs: sheetIntervalS * 1000,
    corsOrigins,
    downloads,
    sandbox: flags.faults === false ? { enabled: false } : { faults },
  });
  let url: string;
  try {
    url = await emulator.listen(host, port);
  } catch (error) {
    await emulator.close();
    throw listenError(error, host, port, '--listen');
  }
  if (tls) process.stdout.write(`${tlsLine(tls)}\n`);
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

/** How the emulator is reached: TLS, a reverse proxy, a public URL (emulator and demo). */
export interface ServingFlags {
  publicUrl?: string;
  trustProxy?: boolean;
  tls?: boolean;
  tlsCert?: string;
  tlsKey?: string;
}

/** Adds --tls, --tls-cert, --tls-key and --trust-proxy. */
export function addServingOptions(command: Command): Command {
  return command
    .option('--tls', 'serve HTTPS with a self-signed certificate kept in the data directory')
    .option('--tls-cert <file>', 'serve HTTPS with this PEM certificate (with --tls-key)')
    .option('--tls-key <file>', 'the PEM private key of --tls-cert')
    .option('--trust-proxy', 'honour X-Forwarded-Proto/Host/Port from a reverse proxy in front');
}

/** The TLS material the flags ask for, or undefined for plain HTTP. */
export async function tlsOf(flags: ServingFlags, dataDir: string): Promise<TlsMaterial | undefined> {
  if (!flags.tlsCert !== !flags.tlsKey) throw new CliError('--tls-cert and --tls-key: give both or neither');
  if (flags.tlsCert && flags.tlsKey) return readTlsFiles(flags.tlsCert, flags.tlsKey);
  return flags.tls ? selfSignedTls(dataDir) : undefined;
}

/** The emulator options of the serving flags. */
export function servingOptions(flags: ServingFlags, tls: TlsMaterial | undefined) {
  return {
    ...(flags.publicUrl ? { publicUrl: checkPublicUrl(flags.publicUrl) } : {}),
    ...(flags.trustProxy ? { trustProxy: true } : {}),
    ...(tls ? { tls: { key: tls.key, cert: tls.cert } } : {}),
  };
}

/** The line that tells where the certificate is and its fingerprint. */
export function tlsLine(tls: TlsMaterial): string {
  const how = tls.created ? 'created' : 'using';
  return `tls: ${how} certificate ${tls.certFile} (SHA-256 fingerprint ${tls.fingerprint})`;
}

function checkPublicUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`--public-url: "${value}" is not a URL (for example https://print.example.com)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CliError(`--public-url: must start with http:// or https:// (got "${value}")`);
  return value.replace(/\/+$/, '');
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
