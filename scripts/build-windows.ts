/**
 * Builds the Windows artifact of the PrintRelay agent (win32-x64), on any machine:
 *   npx tsx scripts/build-windows.ts [--out DIR] [--version X.Y.Z]
 * Writes DIR/printrelay-<version>-win32-x64/ (default DIR: dist-windows) with the compiled
 * dist/, bin/, drivers/, config/ (example files), package.json, the production node_modules
 * pruned for win32-x64 (scripts/prune-node-modules.sh: prebuilt natives for win32-x64 only,
 * WinSW kept in node-windows), install.ps1 (src/service/windows-install-script.ts) and
 * service/printrelay-agent.xml, the WinSW definition `service install` writes with the default
 * paths. The production tree leaves out the optional dependencies: better-sqlite3-node20, the
 * SQLite line for Node 20, with what it alone pulls in (install.ps1 refuses a Node older than
 * 22.14, on which better-sqlite3 13 runs from its win32-x64 prebuild). Natives npm compiled here
 * (build/Release, build/Debug) are for this machine, not Windows, and would be found before a
 * prebuild by the packages that look there first: they are removed, and those of packages that
 * ship no win32-x64 prebuild are named on standard error (nothing loads them on Windows:
 * unix-dgram serves systemd only). install.ps1 needs no network. Prints the artifact's folder on
 * its last line.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { windowsInstallScript } from '../src/service/windows-install-script.js';
import { winswDefinition } from '../src/service/winsw-service.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Packages never needed on Windows: the TypeScript runner (the artifact runs dist/). */
const NOT_SHIPPED = /(^|\/)node_modules\/(tsx|esbuild|@esbuild\/[^/]+)$/;

/**
 * The production dependency tree without optional dependencies (better-sqlite3-node20 is the
 * only one: the Node 20 line), as folders relative to the checkout.
 */
function productionPackages(): string[] {
  const out = execFileSync('npm', ['ls', '--omit=dev', '--omit=optional', '--all', '--parseable'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return [
    ...new Set(
      out
        .split('\n')
        .map((line) => relative(root, line))
        .filter((path) => path.startsWith('node_modules/') && !NOT_SHIPPED.test(path)),
    ),
  ].sort();
}

/** Every compiled native under a build/Release or build/Debug folder (what npm built here), by package. */
function compiledHere(modules: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      const build = /\/build\/(Release|Debug)\//.exec(path);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.node') && build) {
        const pkg = path.slice(0, build.index);
        found.set(pkg, [...(found.get(pkg) ?? []), path]);
      }
    }
  };
  walk(modules);
  return found;
}

/** Whether a package ships its own prebuilt native for win32-x64 (under prebuilds/). */
function shipsWindowsPrebuild(pkgDir: string): boolean {
  const prebuilds = join(pkgDir, 'prebuilds');
  return (
    existsSync(prebuilds) &&
    readdirSync(prebuilds, { recursive: true, encoding: 'utf8' }).some(
      (file) => file.includes('win32-x64') && file.endsWith('.node'),
    )
  );
}

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

function main(args: string[]): void {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const version = option(args, '--version') ?? pkg.version;
  const outDir = option(args, '--out') ?? join(root, 'dist-windows');
  const app = join(outDir, `printrelay-${version}-win32-x64`);
  rmSync(app, { recursive: true, force: true });
  mkdirSync(app, { recursive: true, mode: 0o755 });

  // The bundle (scripts/build-bundle.ts), without source maps and the build's metafile.
  execFileSync(
    'npx',
    ['tsx', 'scripts/build-bundle.ts', '--outdir', join(app, 'dist'), '--no-sourcemap', '--no-meta'],
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  for (const item of ['bin', 'drivers', 'package.json'])
    cpSync(join(root, item), join(app, item), { recursive: true });
  mkdirSync(join(app, 'config'));
  for (const file of readdirSync(join(root, 'config')).filter((f) => f.endsWith('.example.yaml')))
    cpSync(join(root, 'config', file), join(app, 'config', file));
  for (const path of productionPackages()) cpSync(join(root, path), join(app, path), { recursive: true });

  const modules = join(app, 'node_modules');
  for (const [pkgDir, files] of compiledHere(modules)) {
    for (const file of files) rmSync(file);
    const name = relative(modules, pkgDir).replace(/^.*node_modules\//, '');
    if (!shipsWindowsPrebuild(pkgDir))
      process.stderr.write(
        `build-windows: ${name} has no Windows binary in this artifact (built from source only)\n`,
      );
  }
  execFileSync(join(root, 'scripts', 'prune-node-modules.sh'), [modules, 'win32-x64'], { stdio: 'inherit' });
  const winsw = join(modules, 'node-windows', 'bin', 'winsw', 'winsw.exe');
  if (!existsSync(winsw)) throw new Error(`build-windows: ${winsw} is missing: node-windows carries WinSW`);
  const sqlite = join(modules, 'better-sqlite3', 'prebuilds', 'win32-x64.node');
  if (!existsSync(sqlite))
    throw new Error(`build-windows: ${sqlite} is missing: better-sqlite3 13 carries its Windows binary`);

  writeFileSync(join(app, 'install.ps1'), windowsInstallScript());
  mkdirSync(join(app, 'service'));
  writeFileSync(join(app, 'service', 'printrelay-agent.xml'), winswDefinition(DEFAULT_WINDOWS_PATHS));
  process.stdout.write(`${app}\n`);
}

/** The paths install.ps1 uses by default, for the reference copy of the service definition. */
export const DEFAULT_WINDOWS_PATHS = {
  node: 'C:\\Program Files\\nodejs\\node.exe',
  appDir: 'C:\\Program Files\\PrintRelay',
  home: 'C:\\ProgramData\\PrintRelay',
  config: 'C:\\ProgramData\\PrintRelay\\agent.yaml',
  winsw: 'C:\\Program Files\\PrintRelay\\node_modules\\node-windows\\bin\\winsw\\winsw.exe',
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main(process.argv.slice(2));
