/**
 * Checks docs/architecture.md against the tree, for test/unit/architecture.test.ts: the map lists
 * every folder of src/ (as `emulator/pull/tpfm/` or, inside its top folder's table, `pull/tpfm/`)
 * and every path it names in backticks exists.
 */
import { posix } from 'node:path';

/** What the check knows of the tree: folders of src/ (src-relative) and every file (repo-relative). */
export interface Tree {
  srcFolders: readonly string[];
  files: readonly string[];
}

/** Where a named path may be rooted: the repository, src/, the two programs, docs/. */
const ROOTS = ['', 'src/', 'src/emulator/', 'src/agent/', 'docs/'];

const PATHLIKE = /^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*\/?$/;

/** The backticked names of the doc that are paths: with a slash, or a file name of the project's kinds. */
export function namedPaths(doc: string): string[] {
  const names = [...doc.matchAll(/`([^`\n]+)`/g)].map((m) => m[1] ?? '');
  return [
    ...new Set(
      names.filter((name) => PATHLIKE.test(name) && (name.includes('/') || /\.(ts|md|mjs|json)$/.test(name))),
    ),
  ];
}

function exists(name: string, tree: Tree): boolean {
  const folders = new Set(tree.files.flatMap((file) => ancestors(file)));
  if (!name.includes('/')) return tree.files.some((file) => posix.basename(file) === name);
  const bare = name.replace(/\/$/, '');
  return ROOTS.some((root) => {
    const path = `${root}${bare}`;
    return name.endsWith('/') ? folders.has(path) : tree.files.includes(path) || folders.has(path);
  });
}

function ancestors(file: string): string[] {
  const parts = file.split('/');
  return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join('/'));
}

/** Folders of src/ the doc leaves out, and paths it names that do not exist. */
export function architectureDocViolations(doc: string, tree: Tree): string[] {
  const names = new Set(namedPaths(doc));
  const found: string[] = [];
  for (const folder of tree.srcFolders) {
    const withinTop = folder.split('/').slice(1).join('/');
    if (!names.has(`${folder}/`) && !(withinTop && names.has(`${withinTop}/`))) {
      found.push(`folder not in docs/architecture.md: src/${folder}/`);
    }
  }
  for (const name of names) {
    if (!exists(name, tree)) found.push(`docs/architecture.md names a path that does not exist: ${name}`);
  }
  return found;
}
