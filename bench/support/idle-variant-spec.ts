/**
 * The variants of bench:idle-variants, parsed from BENCH_VARIANTS: `label|node flags|VAR=value
 * ...|entry`, separated by `;` (flags and environment come on top of the service's; entry is
 * another build's `cli/main.js` for the agent, resolved against the working directory).
 */
import { resolve } from 'node:path';

/** One way of running the idle agent. */
export interface Variant {
  label: string;
  flags: string[];
  env: Record<string, string>;
  /** The agent's entry file, when not BENCH_ENTRY's. */
  entry?: string;
}

/** Parses BENCH_VARIANTS (`label|flags|VAR=value ...|entry;...`). */
export function parseVariants(text: string): Variant[] {
  return text
    .split(';')
    .filter((part) => part.trim() !== '')
    .map((part) => {
      const [label = '', flags = '', env = '', entry = ''] = part.split('|');
      const words = (s: string) => s.split(' ').filter((w) => w !== '');
      return {
        label: label.trim(),
        flags: words(flags),
        env: Object.fromEntries(
          words(env).map((pair) => {
            const at = pair.indexOf('=');
            if (at < 1)
              throw new Error(`BENCH_VARIANTS: '${pair}' of variant '${label.trim()}' must be VAR=value`);
            return [pair.slice(0, at), pair.slice(at + 1)];
          }),
        ),
        ...(entry.trim() ? { entry: resolve(entry.trim()) } : {}),
      };
    });
}
