/**
 * Builds dist/: the printrelay command as one bundle made by esbuild (npm run build runs it after
 * the validators). `src/cli/main.ts` becomes dist/cli/main.js; every module it imports at first
 * use (each command, the emulator, the agent, the release stations, the copy-job counters) becomes
 * a chunk under dist/chunks/ that is loaded when that import runs, so the laziness of the sources
 * holds in the bundle (test/integration/agent-modules.test.ts checks it on both). The libraries are
 * bundled with the code except the packages in BUNDLE_EXTERNAL (native modules, and packages that
 * read their own files or start workers by path), which are loaded from node_modules at run time.
 * Why a bundle and what it saves: docs/performance.md, *Round 5: the agent as one bundle*; what
 * stays outside and why: docs/packaging.md.
 *   tsx scripts/build-bundle.ts [--outdir DIR] [--no-sourcemap] [--no-meta]
 * Writes DIR/bundle-meta.json beside the code (esbuild's metafile: which source file went into
 * which output file; the tests of the bundle read it) unless --no-meta; the Debian package and the
 * Windows artifact leave it and the source maps out.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Packages left out of the bundle, loaded from node_modules when the code first imports them, with
 * the reason for each group.
 */
export const BUNDLE_EXTERNAL = [
  // native modules: a compiled .node file found by the package from its own directory
  'better-sqlite3',
  'better-sqlite3-node20',
  'serialport',
  '@serialport/*',
  'node-hid',
  'unix-dgram',
  // optional native speed-ups that ws tries to require
  'bufferutil',
  'utf-8-validate',
  // pino starts its transports (pino-pretty) in worker threads from files found by path
  'pino',
  'pino-pretty',
  'thread-stream',
  // they run programs shipped inside the package (SumatraPDF, WinSW) found by path, or lp
  'pdf-to-printer',
  'node-windows',
  'unix-print',
  // the emulator's web server: swagger-ui serves files from its package, and the plugins of
  // fastify must be the same fastify instance the server was made with
  'fastify',
  '@fastify/*',
  // src/client/undici-core.ts requires parts of undici by path (createRequire); every other
  // import of undici must reach the same copy
  'undici',
];

/** The file written beside the code: esbuild's metafile (inputs of every output file). */
export const BUNDLE_META = 'bundle-meta.json';

/**
 * Builds the bundle into `outdir` (emptied first); source maps beside it unless `sourcemap` is
 * false, the metafile unless `meta` is false.
 */
export async function buildBundle(outdir: string, sourcemap = true, meta = true): Promise<void> {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true, mode: 0o755 });
  const result = await build({
    absWorkingDir: root,
    entryPoints: ['src/cli/main.ts'],
    outbase: 'src',
    outdir,
    entryNames: '[dir]/[name]',
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    minify: true,
    keepNames: true,
    // Mapped stack traces need node's --enable-source-maps (docs/packaging.md); the sources'
    // text stays out of the maps, the stack needs only the names and lines.
    sourcemap: sourcemap ? 'linked' : false,
    sourcesContent: false,
    external: BUNDLE_EXTERNAL,
    // The CommonJS libraries inside the bundle call require() for node's modules and the
    // external packages: give each output file a require of its own.
    banner: {
      js: "import { createRequire as __printrelayRequire } from 'node:module'; const require = __printrelayRequire(import.meta.url);",
    },
    metafile: true,
    logLevel: 'warning',
  });
  if (meta) writeFileSync(join(outdir, BUNDLE_META), JSON.stringify(result.metafile));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--outdir');
  const outdir = at >= 0 && args[at + 1] ? resolve(args[at + 1] as string) : join(root, 'dist');
  await buildBundle(outdir, !args.includes('--no-sourcemap'), !args.includes('--no-meta'));
  process.stdout.write(`${outdir}\n`);
}
