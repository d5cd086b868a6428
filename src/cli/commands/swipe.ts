/**
 * `printrelay swipe <number> [--reader socket://HOST:PORT | --data-dir DIR]` sends a swipe to a
 * release station's socket reader; `printrelay swipe --remove` tells it the card left. Without
 * --reader the reader is the first socket:// release station reader of DIR/agent.yaml (DIR
 * defaults to the demo's data directory), so a swipe reaches the demo started with that
 * directory; the command says which reader it used. A card swipe waits for the station's
 * answer over the same connection (`wait <card>`, docs/card-readers.md) and prints it: the jobs
 * it released with their pages, that there was nothing to release, or that the card is unknown;
 * `--timeout S` bounds the wait (default 60), `--no-wait` only delivers the card.
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { parse } from 'yaml';
import { sendSwipe, swipeAndWait } from '../../cardreader/socket/socket-reader.js';
import { DEMO_DATA_DIR } from '../../config/paths.js';
import { CliError, parseIntegerOption } from '../cli-runtime.js';

interface SwipeFlags {
  reader?: string;
  dataDir: string;
  remove?: boolean;
  wait: boolean;
  timeout: string;
}

/** Registers `swipe`. */
export function registerSwipeCommand(program: Command): void {
  program
    .command('swipe')
    .description('send a card swipe (or its removal) to a socket:// card reader')
    .argument('[number]', 'the card number as the reader would deliver it')
    .option('--reader <uri>', 'the station reader, such as socket://127.0.0.1:4711')
    .option(
      '--data-dir <dir>',
      'without --reader: the demo data directory whose reader to use',
      DEMO_DATA_DIR,
    )
    .option('--remove', 'report that the card was removed')
    .option('--no-wait', 'only deliver the card; do not wait for what the station released')
    .option('--timeout <s>', 'how long to wait for what the station released', '60')
    .action(async (number: string | undefined, flags: SwipeFlags) => {
      if (!number === !flags.remove) throw new CliError('give a card number or --remove (not both)');
      const timeoutMs = parseIntegerOption('--timeout', flags.timeout, 1, 3600) * 1000;
      const file = flags.reader ? undefined : demoConfigFile(flags.dataDir);
      const reader = flags.reader ?? (await demoReader(flags.dataDir));
      let lines: string[] = ['ok'];
      try {
        if (flags.remove || !flags.wait) await sendSwipe(reader, flags.remove ? 'remove' : number!);
        else lines = await swipeAndWait(reader, number!, timeoutMs);
      } catch (error) {
        throw new CliError(`swipe to ${reader} failed: ${(error as Error).message}${staleHint(error, file)}`);
      }
      process.stdout.write(lines.map((l) => `${l}\n`).join(''));
    });
}

/** DIR/agent.yaml, where a swipe without --reader finds its reader. */
function demoConfigFile(dataDir: string): string {
  return join(resolve(dataDir), 'agent.yaml');
}

/** Connection failures that mean no station listens at the reader's address. */
const NOBODY_LISTENS = new Set(['ECONNREFUSED', 'ENOENT', 'EHOSTUNREACH', 'ECONNRESET']);

/**
 * What to do when the reader was taken from a demo's agent.yaml and nobody listens there: that
 * file is likely left from a demo that is not running (or ran with another data directory).
 */
function staleHint(error: unknown, file: string | undefined): string {
  if (!file || !NOBODY_LISTENS.has((error as NodeJS.ErrnoException).code ?? '')) return '';
  return (
    `; no release station listens there. The reader came from ${file}, which may be left from a demo ` +
    'that is not running: start the demo on that directory (printrelay demo --data-dir DIR), name the ' +
    "running demo's directory with --data-dir, or give --reader socket://HOST:PORT"
  );
}

/** The first socket:// reader of DIR/agent.yaml; says on stderr which one it took. */
export async function demoReader(dataDir: string): Promise<string> {
  const file = demoConfigFile(dataDir);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new CliError(
      `--reader: not given, and ${file} does not exist; start the demo (printrelay demo --data-dir ${dataDir}), ` +
        'name its data directory with --data-dir, or give --reader socket://HOST:PORT',
    );
  }
  const config = parse(text) as { release_stations?: { reader?: unknown }[] } | null;
  const reader = config?.release_stations
    ?.map((s) => s.reader)
    .find((r): r is string => typeof r === 'string' && r.startsWith('socket:'));
  if (!reader)
    throw new CliError(`--reader: not given, and ${file} names no socket:// reader; give --reader`);
  process.stderr.write(`using reader ${reader} (from ${file})\n`);
  return reader;
}
