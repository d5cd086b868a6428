/**
 * `printrelay card probe --reader URI [--transform STEP ...]`: waits for one swipe and prints
 * every conversion of it side by side, so IT can pick the site's chain; `--value RAW` probes a
 * number typed in instead. `printrelay card profiles` lists the shipped reader profiles;
 * `printrelay card copies` the copy jobs the agent recorded (card-copies.ts). Each takes `--json`
 * for a JSON document on standard output instead of the table. The
 * numbers are printed on the terminal on purpose (this is the tool to find them); they are not logged.
 */
import type { Command } from 'commander';
import type { CardReader } from '../../cardreader/card-reader.js';
import { loadReaderProfiles } from '../../cardreader/reader-profiles.js';
import { defaultCardReaderRegistry, profileForUri } from '../../cardreader/reader-registry.js';
import { type ProbeRow, parseTransformChain, probeConversions } from '../../cardreader/transform.js';
import { systemClock } from '../../lib/clock.js';
import { addLogOptions, CliError, createCliLogger, type LogFlags } from '../cli-runtime.js';
import { type CopiesFlags, runCardCopies } from './card-copies.js';

interface ProbeFlags extends LogFlags {
  reader?: string;
  value?: string;
  transform: string[];
  json?: boolean;
}

/** Registers `card` with its subcommands `probe`, `profiles` and `copies`. */
export function registerCardCommand(program: Command): void {
  const card = program.command('card').description('card readers: find the card-number format');
  const probe = card
    .command('probe')
    .description('show every conversion of one swipe side by side')
    .option('--reader <uri>', 'serial:///dev/ttyUSB0, hid://0c27:3bfa, keyboard:, socket://127.0.0.1:4711')
    .option('--value <raw>', 'probe this raw number instead of reading a card')
    .option('--transform <step>', 'also show this chain (repeat the option for more steps)', collect, [])
    .option('--json', 'print { raw, conversions: [{ chain, result | error }] } as JSON');
  addLogOptions(probe, 'warn').action(async (flags: ProbeFlags) => runProbe(flags));
  card
    .command('copies')
    .description('list the copy jobs recorded at the release stations, newest first')
    .requiredOption('--data-dir <dir>', "the agent's data directory")
    .option('--card <number>', 'only this card (the converted user id)')
    .option('--limit <n>', 'at most this many', '20')
    .option('--json', 'print the records as a JSON array')
    .action((flags: CopiesFlags) => runCardCopies(flags));
  card
    .command('profiles')
    .description('list the reader profiles shipped in drivers/cardreaders')
    .option('--json', 'print the profiles as a JSON array')
    .action(async (flags: { json?: boolean }) => {
      const profiles = await loadReaderProfiles();
      if (flags.json) {
        process.stdout.write(`${JSON.stringify(profiles, null, 2)}\n`);
        return;
      }
      for (const p of profiles) {
        const usb = p.usb.map((u) => `${u.vendorId}:${u.productId}`).join(',') || '-';
        process.stdout.write(`${p.id.padEnd(26)} ${p.connection.padEnd(13)} ${usb.padEnd(20)} ${p.name}\n`);
      }
    });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** The probe table as text lines. */
export function formatProbe(raw: string, rows: ProbeRow[]): string[] {
  const width = Math.max(...rows.map((r) => r.chain.length));
  return [`raw: ${raw}`, ...rows.map((r) => `${r.chain.padEnd(width)}  ${r.result ?? `(${r.error})`}`)];
}

async function runProbe(flags: ProbeFlags): Promise<void> {
  if (!flags.reader === !flags.value)
    throw new CliError('give exactly one of --reader <uri> or --value <raw>');
  try {
    if (flags.transform.length > 0) parseTransformChain(flags.transform);
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  const extra = flags.transform.length > 0 ? [flags.transform] : [];
  const raw = flags.value ?? (await readOneSwipe(flags.reader!, flags, extra));
  const conversions = probeConversions(raw, extra);
  process.stdout.write(
    flags.json
      ? `${JSON.stringify({ raw, conversions }, null, 2)}\n`
      : `${formatProbe(raw, conversions).join('\n')}\n`,
  );
}

async function readOneSwipe(uri: string, flags: LogFlags, extra: string[][]): Promise<string> {
  const { logger } = createCliLogger(flags, { level: 'warn' });
  const profiles = await loadReaderProfiles();
  const profile = profileForUri(uri, profiles);
  if (profile && profile.transforms.length > 0) extra.unshift(profile.transforms);
  const reader: CardReader = defaultCardReaderRegistry().create(uri, {
    logger,
    clock: systemClock,
    profiles,
  });
  const swipe = new Promise<string>((resolve) => {
    reader.onEvent((event) => {
      if (event.type !== 'card') return;
      // a `printrelay swipe` waiting for an outcome learns where its card went
      event.reply?.(['read by printrelay card probe (its terminal shows the conversions); nothing released']);
      resolve(event.raw);
    });
  });
  await reader.start();
  process.stderr.write(`swipe a card at ${uri} ...\n`);
  try {
    return await swipe;
  } finally {
    await reader.stop();
  }
}
