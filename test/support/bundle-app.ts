/**
 * A built bundle laid out as an installed package, for tests that run the printrelay command from
 * it: scripts/build-bundle.ts writes DIR/app/dist/, beside a copy of package.json, and
 * node_modules and drivers/ linked from this checkout (the bundle's external packages and data).
 * Built into its own directory, so it never races another test that builds dist/ (npm pack).
 * The caller removes DIR.
 */
import { copyFileSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLE_META, buildBundle } from '../../scripts/build-bundle.js';

const checkout = join(import.meta.dirname, '..', '..');

/** The inputs of esbuild's metafile, per output file. */
interface Metafile {
  outputs: Record<string, { inputs: Record<string, unknown> }>;
}

/** A bundle installed under a directory. */
export interface BundleApp {
  /** The package root (package.json, dist/, node_modules). */
  root: string;
  /** dist/cli/main.js: what bin/printrelay.js runs in a package. */
  main: string;
  /**
   * The module-trace names (test/support/module-trace) with every `dist/...` output file of the
   * bundle replaced by what it holds: `src/...` files, and for a package file both the package
   * name and `package/path`, as the trace names them when they are loaded unbundled.
   */
  expand(names: Iterable<string>): Set<string>;
}

/** Builds the bundle into `dir`/app and lays out the package around it. */
export async function buildBundleApp(dir: string): Promise<BundleApp> {
  const root = join(dir, 'app');
  mkdirSync(root, { recursive: true });
  await buildBundle(join(root, 'dist'));
  copyFileSync(join(checkout, 'package.json'), join(root, 'package.json'));
  symlinkSync(join(checkout, 'node_modules'), join(root, 'node_modules'));
  symlinkSync(join(checkout, 'drivers'), join(root, 'drivers'));
  const meta = JSON.parse(readFileSync(join(root, 'dist', BUNDLE_META), 'utf8')) as Metafile;
  const inputs = new Map<string, string[]>();
  for (const [output, { inputs: of }] of Object.entries(meta.outputs)) {
    const at = output.lastIndexOf('dist/');
    if (at >= 0) inputs.set(output.slice(at), Object.keys(of).flatMap(inputTraceNames));
  }
  return {
    root,
    main: join(root, 'dist', 'cli', 'main.js'),
    expand(names) {
      const out = new Set<string>();
      for (const name of names) for (const each of inputs.get(name) ?? [name]) out.add(each);
      return out;
    },
  };
}

/** `src/x.ts` as it is; `node_modules/pkg/path` as `pkg` and `pkg/path` (scope included). */
function inputTraceNames(input: string): string[] {
  const inPackage = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(input);
  if (inPackage) return [inPackage[1] as string, `${inPackage[1]}/${inPackage[2]}`];
  return input.startsWith('src/') ? [input] : [];
}
