// What a loaded module's URL or path is called in a module trace: the package name for a file
// under node_modules (the innermost one, scope included), `src/...` for a project source file,
// `dist/...` for an output file of the bundle (test/support/bundle-inputs.ts turns it into the
// source files and packages bundled in it), the URL itself for a built-in (node:fs). Anything
// else (tests, bin/, tsx's own helpers) is left out. A file of a package is also traced by its path in the package (ajv/dist/core.js),
// for tests that tell which parts of a package a process loads. Shared by hook.mjs (ESM, in the
// hooks thread) and register.mjs (CommonJS, at exit).

const packagePath = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/;
const sourcePath = /\/(src\/.+)$/;
const bundlePath = /\/(dist\/.+\.js)$/;

/** The trace name of `where` (a file: URL or an absolute path), or undefined. */
export function moduleName(where) {
  if (where.startsWith('node:')) return where;
  const path = where.startsWith('file://') ? decodeURIComponent(new URL(where).pathname) : where;
  const inPackage = packagePath.exec(path);
  if (inPackage) return inPackage[1];
  return sourcePath.exec(path)?.[1] ?? bundlePath.exec(path)?.[1];
}

/** The trace names of `where`: its moduleName and, for a file of a package, `package/path`. */
export function traceNames(where) {
  const name = moduleName(where);
  if (!name) return [];
  const path = where.startsWith('file://') ? decodeURIComponent(new URL(where).pathname) : where;
  const inPackage = packagePath.exec(path);
  return inPackage ? [name, `${inPackage[1]}/${inPackage[2]}`] : [name];
}
