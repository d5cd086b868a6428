/**
 * The emulator's composition rule (docs/architecture.md), checked on its sources by
 * test/unit/architecture.test.ts: only the composition root holds the whole EmulatorContext.
 * Every other module declares the narrow context it uses and is handed just that, so it can
 * neither import the context's type (emulator/context.ts) nor reach the whole context through
 * the Fastify instance (`app.emulator`, `request.server.emulator`).
 */
import type { ImportEdge } from './import-graph.js';

/** The module that declares the whole context. */
export const CONTEXT_MODULE = 'emulator/context.ts';

/**
 * The composition root: app.ts builds the context, app-routes.ts hands out slices, and the
 * demo (cli/demo-stack.ts), which runs the emulator and an agent in one process, lends its
 * helpers the parts they use.
 */
export const COMPOSITION_ROOT: readonly string[] = [
  'emulator/app.ts',
  'emulator/app-routes.ts',
  'cli/demo-stack.ts',
];

const THROUGH_FASTIFY = /\b(?:app|server)\.emulator\b/;

/** Every module outside the composition root that holds the whole context, one line each, sorted. */
export function wholeContextHolders(
  sources: ReadonlyMap<string, string>,
  edges: readonly ImportEdge[],
  root: readonly string[] = COMPOSITION_ROOT,
): string[] {
  const found = new Set<string>();
  for (const edge of edges) {
    if (edge.project && edge.target === CONTEXT_MODULE && !root.includes(edge.from))
      found.add(`imports the whole EmulatorContext: ${edge.from}`);
  }
  for (const [file, text] of sources) {
    if (file === CONTEXT_MODULE || root.includes(file)) continue;
    if (THROUGH_FASTIFY.test(text)) found.add(`reaches the whole EmulatorContext through Fastify: ${file}`);
  }
  return [...found].sort();
}
