/**
 * What changed between two agent configurations, for a reload (SIGHUP): printers and release
 * stations (readers) added, removed or changed by name, the log level, and the sections a
 * running agent does not apply (they need a restart). Pure.
 */
import { isDeepStrictEqual } from 'node:util';
import type { AgentConfig } from './agent-schema.js';

/** Names added, removed and changed in a keyed list. */
export interface ListDelta {
  added: string[];
  removed: string[];
  changed: string[];
}

/** Everything a reload reports. */
export interface ConfigChanges {
  printers: ListDelta;
  readers: ListDelta;
  logLevel?: { from: string; to: string };
  /** Top-level sections that differ but are applied only at the next start. */
  needRestart: string[];
}

/** Sections a reload applies. */
const APPLIED = new Set(['printers', 'release_stations', 'log', 'version']);

/** Compares two validated configurations. */
export function configChanges(before: AgentConfig, after: AgentConfig): ConfigChanges {
  const changes: ConfigChanges = {
    printers: listDelta(before.printers, after.printers),
    readers: listDelta(before.release_stations, after.release_stations),
    needRestart: [],
  };
  if (before.log.level !== after.log.level)
    changes.logLevel = { from: before.log.level, to: after.log.level };
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]) as Set<keyof AgentConfig>;
  for (const key of keys) {
    if (!APPLIED.has(key) && !isDeepStrictEqual(before[key], after[key])) changes.needRestart.push(key);
  }
  if (!isDeepStrictEqual({ ...before.log, level: '' }, { ...after.log, level: '' }))
    changes.needRestart.push('log.pretty');
  return changes;
}

/** Whether anything changed at all. */
export function hasChanges(changes: ConfigChanges): boolean {
  const { printers: p, readers: r } = changes;
  const count = p.added.length + p.removed.length + p.changed.length + r.added.length + r.removed.length;
  return count + r.changed.length + changes.needRestart.length > 0 || changes.logLevel !== undefined;
}

/** One line: `printers added: A; removed: B; readers changed: C; log level info -> debug; ...`. */
export function describeChanges(changes: ConfigChanges): string {
  if (!hasChanges(changes)) return 'nothing changed';
  const parts = [...deltaParts('printers', changes.printers), ...deltaParts('readers', changes.readers)];
  if (changes.logLevel) parts.push(`log level ${changes.logLevel.from} -> ${changes.logLevel.to}`);
  if (changes.needRestart.length > 0) {
    parts.push(`not applied until a restart: ${changes.needRestart.join(', ')}`);
  }
  return parts.join('; ');
}

function deltaParts(what: string, delta: ListDelta): string[] {
  const parts: string[] = [];
  for (const kind of ['added', 'removed', 'changed'] as const) {
    if (delta[kind].length > 0) parts.push(`${what} ${kind}: ${delta[kind].join(', ')}`);
  }
  return parts;
}

function listDelta(before: readonly { name: string }[], after: readonly { name: string }[]): ListDelta {
  const old = new Map(before.map((e) => [e.name, e]));
  const next = new Map(after.map((e) => [e.name, e]));
  return {
    added: [...next.keys()].filter((n) => !old.has(n)),
    removed: [...old.keys()].filter((n) => !next.has(n)),
    changed: [...next.entries()]
      .filter(([n, e]) => old.has(n) && !isDeepStrictEqual(old.get(n), e))
      .map(([n]) => n),
  };
}
