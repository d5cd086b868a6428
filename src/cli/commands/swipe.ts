/**
 * `printrelay swipe <number> [--reader socket://127.0.0.1:4711]` sends a swipe to a release
 * station's socket reader; `printrelay swipe --remove` tells it the card left.
 */
import type { Command } from 'commander';
import { sendSwipe } from '../../cardreader/socket/socket-reader.js';
import { CliError } from '../cli-runtime.js';

interface SwipeFlags {
  reader: string;
  remove?: boolean;
}

/** Registers `swipe`. */
export function registerSwipeCommand(program: Command): void {
  program
    .command('swipe')
    .description('send a card swipe (or its removal) to a socket:// card reader')
    .argument('[number]', 'the card number as the reader would deliver it')
    .option('--reader <uri>', 'the station reader', 'socket://127.0.0.1:4711')
    .option('--remove', 'report that the card was removed')
    .action(async (number: string | undefined, flags: SwipeFlags) => {
      if (!number === !flags.remove) throw new CliError('give a card number or --remove (not both)');
      try {
        await sendSwipe(flags.reader, flags.remove ? 'remove' : number!);
      } catch (error) {
        throw new CliError(`swipe to ${flags.reader} failed: ${(error as Error).message}`);
      }
      process.stdout.write('ok\n');
    });
}
