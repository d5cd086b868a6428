/**
 * Counts a node process's garbage collections from the lines `--trace-gc` prints on its standard
 * output (`... 1234 ms: Mark-Compact 30.1 (50.2) -> 28.0 (49.1) MB, 12.3 / 0.0 ms ...`): full
 * collections (Mark-Compact), scavenges and their pauses, as running totals to snapshot
 * between the legs of a benchmark.
 */
import { createInterface } from 'node:readline';

/** Collections seen so far. */
export interface GcCounts {
  full: number;
  scavenges: number;
  /** Milliseconds of pause of the full collections. */
  fullPauseMs: number;
}

const TRACE_LINE = /\d+ ms: (Mark-Compact|Scavenge|Minor Mark-Sweep)\b[^,]*, ([\d.]+) \/ [\d.]+ ms/;

/** Reads `stdout` to its end; snapshot() gives the totals so far. */
export function countCollections(stdout: NodeJS.ReadableStream): { snapshot(): GcCounts } {
  const counts: GcCounts = { full: 0, scavenges: 0, fullPauseMs: 0 };
  createInterface({ input: stdout }).on('line', (line) => {
    const match = TRACE_LINE.exec(line);
    if (!match) return;
    if (match[1] === 'Mark-Compact') {
      counts.full += 1;
      counts.fullPauseMs += Number(match[2]);
    } else counts.scavenges += 1;
  });
  return { snapshot: () => ({ ...counts }) };
}

/** The collections between two snapshots, as one line. */
export function collectionsBetween(before: GcCounts, after: GcCounts): string {
  const full = after.full - before.full;
  const pause = (after.fullPauseMs - before.fullPauseMs) / 1000;
  return `${full} full (${pause.toFixed(2)} s of pauses), ${after.scavenges - before.scavenges} scavenges`;
}
