/**
 * Reads the imports of TypeScript sources with the TypeScript parser and checks them against the
 * architecture's rules (docs/architecture.md): the layer order, emulator and agent apart, pure
 * protocol and translation code, and no import cycles. Used by test/unit/architecture.test.ts on
 * src/ and on small fixtures that break each rule on purpose.
 */
import { posix } from 'node:path';
import ts from 'typescript';

/** One import of one file. `target` is a src-relative path for project files, else the bare specifier. */
export interface ImportEdge {
  from: string;
  target: string;
  project: boolean;
  /** `import type`, or every named binding type-only: erased at run time. */
  typeOnly: boolean;
}

/** The imports of every file of `sources` (src-relative path -> text). */
export function readImports(sources: ReadonlyMap<string, string>): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const [file, text] of sources) {
    const parsed = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
    const visit = (node: ts.Node): void => {
      const found = importOf(node);
      if (found) edges.push(edgeOf(file, found.specifier, found.typeOnly));
      ts.forEachChild(node, visit);
    };
    visit(parsed);
  }
  return edges;
}

function importOf(node: ts.Node): { specifier: string; typeOnly: boolean } | undefined {
  if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
    const clause = node.importClause;
    const named = clause?.namedBindings;
    const allNamedTypes =
      named !== undefined &&
      ts.isNamedImports(named) &&
      clause?.name === undefined &&
      named.elements.length > 0 &&
      named.elements.every((e) => e.isTypeOnly);
    return { specifier: node.moduleSpecifier.text, typeOnly: Boolean(clause?.isTypeOnly) || allNamedTypes };
  }
  if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
    return { specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly };
  }
  if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
    const [arg] = node.arguments;
    if (arg && ts.isStringLiteral(arg)) return { specifier: arg.text, typeOnly: false };
  }
  return undefined;
}

function edgeOf(from: string, specifier: string, typeOnly: boolean): ImportEdge {
  if (!specifier.startsWith('.')) return { from, target: specifier, project: false, typeOnly };
  const target = posix.normalize(posix.join(posix.dirname(from), specifier)).replace(/\.js$/, '.ts');
  return { from, target, project: true, typeOnly };
}

/**
 * The layers, top to bottom: a folder may import its own files and folders of lower layers only.
 * Folders of one layer do not import each other (emulator and agent above all).
 */
export const LAYERS: readonly (readonly string[])[] = [
  ['cli'],
  ['emulator', 'agent'],
  ['client', 'printing', 'cardreader', 'store', 'config', 'service'],
  ['protocol', 'log'],
  ['lib'],
];

/** What the emulator may import of the project, besides itself: it meets the agent only over HTTP. */
export const EMULATOR_MAY_IMPORT: readonly string[] = ['config', 'protocol', 'log', 'lib'];

/** Folders whose code is pure: no I/O module may be reached from them, even through other files. */
export const PURE_FOLDERS: readonly string[] = ['protocol/', 'printing/translate/'];

/** Modules that do I/O: the network, files, processes, devices, databases, logging sinks. */
export const IO_MODULES: readonly string[] = [
  'fs',
  'fs/promises',
  'net',
  'http',
  'https',
  'http2',
  'tls',
  'dgram',
  'dns',
  'child_process',
  'worker_threads',
  'cluster',
  'readline',
  'undici',
  'ws',
  'better-sqlite3',
  'better-sqlite3-node20',
  'serialport',
  'node-hid',
  'unix-print',
  'unix-dgram',
  'pdf-to-printer',
  'multicast-dns',
  'net-snmp',
  'fastify',
  'pino',
];

function folderOf(file: string): string {
  return file.split('/')[0] ?? file;
}

function layerOf(folder: string): number {
  return LAYERS.findIndex((layer) => layer.includes(folder));
}

function isIoModule(specifier: string): boolean {
  const bare = specifier.replace(/^node:/, '');
  return IO_MODULES.some((m) => bare === m || bare.startsWith(`${m}/`));
}

/** Every broken rule among `edges`, one line each. */
export function checkArchitecture(edges: readonly ImportEdge[]): string[] {
  return [
    ...layerViolations(edges),
    ...purityViolations(edges),
    ...cycles(edges).map((c) => `cycle: ${c.join(' -> ')}`),
  ];
}

function layerViolations(edges: readonly ImportEdge[]): string[] {
  const found: string[] = [];
  for (const edge of edges) {
    if (!edge.project) continue;
    const from = folderOf(edge.from);
    const to = folderOf(edge.target);
    if (from === to) continue;
    if (from === 'emulator' && !EMULATOR_MAY_IMPORT.includes(to)) {
      found.push(`emulator imports ${to}: ${edge.from} -> ${edge.target}`);
    } else if (layerOf(from) < 0 || layerOf(to) < 0) {
      found.push(`folder outside the layer order: ${edge.from} -> ${edge.target}`);
    } else if (layerOf(to) <= layerOf(from)) {
      const how = layerOf(to) === layerOf(from) ? 'sideways' : 'upward';
      found.push(`${how} import ${from} -> ${to}: ${edge.from} -> ${edge.target}`);
    }
  }
  return found;
}

function purityViolations(edges: readonly ImportEdge[]): string[] {
  const runtime = new Map<string, ImportEdge[]>();
  for (const edge of edges) {
    if (edge.typeOnly) continue;
    runtime.set(edge.from, [...(runtime.get(edge.from) ?? []), edge]);
  }
  const found: string[] = [];
  for (const file of runtime.keys()) {
    if (!PURE_FOLDERS.some((folder) => file.startsWith(folder))) continue;
    const path = ioPath(file, runtime, new Set());
    if (path) found.push(`I/O in pure code: ${path.join(' -> ')}`);
  }
  return found;
}

/** The chain of runtime imports from `file` to an I/O module, if there is one. */
function ioPath(file: string, runtime: Map<string, ImportEdge[]>, seen: Set<string>): string[] | undefined {
  seen.add(file);
  for (const edge of runtime.get(file) ?? []) {
    if (!edge.project) {
      if (isIoModule(edge.target)) return [file, edge.target];
      continue;
    }
    if (seen.has(edge.target)) continue;
    const rest = ioPath(edge.target, runtime, seen);
    if (rest) return [file, ...rest];
  }
  return undefined;
}

/** Each import cycle among project files (type-only imports count), as the list of its files. */
export function cycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const edge of edges) {
    if (edge.project) next.set(edge.from, [...(next.get(edge.from) ?? []), edge.target]);
  }
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const found: string[][] = [];
  const walk = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const target of next.get(file) ?? []) {
      if (state.get(target) === 'open') {
        const cycle = [...stack.slice(stack.indexOf(target)), target];
        if (!found.some((c) => c.join() === cycle.join())) found.push(cycle);
      } else if (!state.has(target)) walk(target);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of [...next.keys()].sort()) if (!state.has(file)) walk(file);
  return found;
}
