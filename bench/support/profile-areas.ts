/**
 * A CPU profile's samples inside time windows, summed by area of the code, for
 * bench:release-split: the labels of chargeSamples (bench/profile-summary.ts) folded into the
 * folder of our code they belong to (`emulator/pull`, `agent/release`, ...), a library, node's
 * modules, the garbage collector or V8's native entries; and the idle samples (`(idle)`,
 * `(program)`, `[node:inspector]`) apart, as time the process waited rather than worked.
 */
import { type CpuProfile, chargeSamples } from '../profile-summary.js';

/** The labels that stand for waiting, not work. */
export const IDLE_LABELS = new Set(['(idle)', '(program)', '[node:inspector]']);

/** A span of the monotonic clock in microseconds, start excluded, end included. */
export interface Window {
  fromUs: number;
  toUs: number;
}

/** The area a chargeSamples label belongs to. */
export function areaOf(label: string): string {
  const own = / src\/(.+)\/[^/]+$/.exec(label) ?? / dist\/(.+)\/[^/]+$/.exec(label);
  if (own) return own[1]!.split('/').slice(0, 2).join('/');
  if (label.startsWith('[node:')) return '[node]';
  if (label.startsWith('(native)')) return '(native)';
  return label;
}

/** Busy and idle microseconds of the samples inside `windows`, busy by area and by label. */
export interface WindowCharge {
  busyUs: number;
  idleUs: number;
  byArea: Map<string, number>;
  byLabel: Map<string, number>;
}

/** Sums the samples of `profile` that fall inside any of `windows` (see the file comment). */
export function chargeWindows(profile: CpuProfile, windows: Window[]): WindowCharge {
  const inside = (at: number) => windows.some((w) => at > w.fromUs && at <= w.toUs);
  const byLabel = chargeSamples(profile, inside);
  const byArea = new Map<string, number>();
  let busyUs = 0;
  let idleUs = 0;
  for (const [label, us] of byLabel) {
    if (IDLE_LABELS.has(label)) {
      idleUs += us;
      continue;
    }
    busyUs += us;
    const area = areaOf(label);
    byArea.set(area, (byArea.get(area) ?? 0) + us);
  }
  for (const label of IDLE_LABELS) byLabel.delete(label);
  return { busyUs, idleUs, byArea, byLabel };
}
