/**
 * Reads a V8 heap snapshot (`v8.writeHeapSnapshot`) and sums its nodes' own sizes by kind
 * (bytecode and function metadata, machine code, feedback, module source text, other strings,
 * object shapes, closures, objects, arrays), by module (each loaded script's source text plus the
 * compiled functions and metadata reached from its functions), and by constructor (object counts,
 * to find what each printer holds). Used by bench:idle-breakdown.
 */
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: {
    meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/** Totals of one snapshot, bytes. */
export interface HeapSummary {
  total: number;
  byKind: Map<string, number>;
  /** Per module group (`node:internal`, a package, a top folder of dist/): source and compiled. */
  byModule: Map<string, { source: number; compiled: number; scripts: number }>;
  /** Per constructor name of plain objects: count and own size. */
  byConstructor: Map<string, { count: number; size: number }>;
}

/** The group a script's URL belongs to: `node:internal`, `<package>` under node_modules, `dist/<folder>`. */
export function moduleGroup(url: string): string {
  if (url.startsWith('node:') || !url.includes('/')) return 'node (built-in modules)';
  const packages = [...url.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)/g)];
  const pkg = packages[packages.length - 1]; // the innermost package
  if (pkg) return pkg[1] ?? url;
  const own = /\/dist\/([^/]+)/.exec(url) ?? /\/src\/([^/]+)/.exec(url);
  if (own) return `printrelay ${own[1]}/`;
  return 'other';
}

function kindOf(type: string, name: string, isSource: boolean): string {
  if (type === 'string' || type === 'concatenated string' || type === 'sliced string')
    return isSource ? 'module source text' : 'other strings';
  if (type === 'code') {
    if (name.startsWith('(code') || name === 'system / Code' || name === 'system / InstructionStream')
      return 'machine code (baseline, optimized, stubs)';
    if (name.includes('Feedback')) return 'feedback (type feedback of run functions)';
    return 'bytecode, scopes, function and script metadata';
  }
  if (type === 'object shape' || name === 'system / Map') return 'object shapes (maps)';
  if (type === 'closure') return 'closures';
  if (type === 'object') return 'objects';
  if (type === 'array') return 'arrays (properties, elements, other)';
  if (type === 'hidden') return 'other V8 internals';
  return type;
}

/** Summarizes the snapshot at `path`. */
export function summarizeHeapSnapshot(path: string): HeapSummary {
  const data = JSON.parse(readFileSync(path, 'utf8')) as Snapshot;
  const meta = data.snapshot.meta;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const types = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const { nodes, edges, strings } = data;
  const count = nodes.length / nf;
  const firstEdge = new Uint32Array(count + 1);
  for (let i = 0, e = 0; i < count; i++) {
    firstEdge[i] = e;
    e += (nodes[i * nf + 4] ?? 0) * ef;
    firstEdge[i + 1] = e;
  }
  const type = (n: number) => types[nodes[n * nf] ?? 0] ?? '';
  const name = (n: number) => strings[nodes[n * nf + 1] ?? 0] ?? '';
  const size = (n: number) => nodes[n * nf + 3] ?? 0;
  const edgeName = (e: number) => {
    const t = edgeTypes[edges[e] ?? 0];
    return t === 'element' || t === 'hidden' ? '' : (strings[edges[e + 1] ?? 0] ?? '');
  };
  const eachEdge = (n: number, visit: (to: number, edgeName: string, edgeType: string) => void) => {
    for (let e = firstEdge[n] ?? 0; e < (firstEdge[n + 1] ?? 0); e += ef)
      visit((edges[e + 2] ?? 0) / nf, edgeName(e), edgeTypes[edges[e] ?? 0] ?? '');
  };
  // scripts: their URL and source text
  const scriptGroup = new Map<number, string>();
  const sources = new Set<number>();
  const summary: HeapSummary = { total: 0, byKind: new Map(), byModule: new Map(), byConstructor: new Map() };
  const groupOf = (group: string) => {
    let entry = summary.byModule.get(group);
    if (!entry) {
      entry = { source: 0, compiled: 0, scripts: 0 };
      summary.byModule.set(group, entry);
    }
    return entry;
  };
  for (let n = 0; n < count; n++) {
    if (type(n) !== 'code') continue;
    let url: string | undefined;
    let source: number | undefined;
    eachEdge(n, (to, edge) => {
      if (edge === 'source') source = to;
      else if (edge === 'name' && type(to) === 'string') url = name(to);
    });
    if (source === undefined || url === undefined) continue;
    const group = moduleGroup(url);
    scriptGroup.set(n, group);
    sources.add(source);
    const entry = groupOf(group);
    entry.scripts += 1;
    entry.source += size(source);
  }
  // compiled: each function (an SFI points at its script) with the code-like nodes below it
  const claimed = new Uint8Array(count);
  for (const n of scriptGroup.keys()) claimed[n] = 1;
  for (const s of sources) claimed[s] = 1;
  for (let n = 0; n < count; n++) {
    if (type(n) !== 'code' || claimed[n]) continue;
    let group: string | undefined;
    eachEdge(n, (to, edge) => {
      if (edge === 'script_or_debug_info' || edge === 'script') group = scriptGroup.get(to) ?? group;
    });
    if (group === undefined) continue;
    const entry = groupOf(group);
    const stack = [n];
    claimed[n] = 1;
    while (stack.length > 0) {
      const at = stack.pop() as number;
      entry.compiled += size(at);
      eachEdge(at, (to, _edge, edgeType) => {
        if (claimed[to] || edgeType !== 'internal') return;
        const t = type(to);
        if (t !== 'code' && t !== 'array') return;
        let isFunction = false;
        eachEdge(to, (_to, e) => {
          if (e === 'script_or_debug_info') isFunction = true;
        });
        if (isFunction) return; // another function: counted from itself
        claimed[to] = 1;
        stack.push(to);
      });
    }
  }
  for (let n = 0; n < count; n++) {
    const t = type(n);
    const kind = kindOf(t, name(n), sources.has(n));
    summary.byKind.set(kind, (summary.byKind.get(kind) ?? 0) + size(n));
    summary.total += size(n);
    if (t === 'object') {
      const entry = summary.byConstructor.get(name(n)) ?? { count: 0, size: 0 };
      entry.count += 1;
      entry.size += size(n);
      summary.byConstructor.set(name(n), entry);
    }
  }
  return summary;
}
