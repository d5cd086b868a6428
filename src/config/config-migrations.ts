/**
 * Versions of agent.yaml and the steps that upgrade an older file. A file without `version:` is
 * version 0 (written before the field existed; its keys are those of version 1). The agent
 * migrates on load: the original is kept next to the file as `<file>.v<N>.bak` (0600 when it
 * holds secrets, else the original's mode), the upgraded text replaces the file (comments kept),
 * and the caller logs the changes. A file the agent may not write is migrated in memory only.
 */
import { chmodSync, copyFileSync, readFileSync, statSync } from 'node:fs';
import { type Document, isMap, isScalar, parseDocument } from 'yaml';
import { writeFileAtomic } from '../lib/atomic-file.js';
import type { AgentConfig } from './agent-schema.js';
import { ConfigError } from './config-error.js';
import { type LoadOptions, loadAgentConfig, parseAgentConfig } from './load-config.js';

/** The version this PrintRelay writes and understands. */
export const AGENT_CONFIG_VERSION = 1;

/** One upgrade step; `apply` edits the document and says what it changed. */
interface Migration {
  from: number;
  apply(doc: Document): string[];
}

const MIGRATIONS: readonly Migration[] = [
  {
    from: 0,
    apply(doc) {
      // Version 0 has the keys of version 1: the field is all that is new.
      if (!isMap(doc.contents)) {
        doc.set('version', 1);
        return ['added `version: 1`'];
      }
      const pair = doc.createPair('version', 1);
      const first = doc.contents.items[0]?.key as
        | { commentBefore?: string | null; spaceBefore?: boolean }
        | undefined;
      // The comment above the first key starts with the file's header (up to its last blank
      // line): the header stays above `version:`, the rest stays with its key.
      const comment = first?.commentBefore ?? '';
      const headerEnd = comment.lastIndexOf('\n\n');
      if (first && headerEnd >= 0 && isScalar(pair.key)) {
        pair.key.commentBefore = comment.slice(0, headerEnd);
        first.commentBefore = comment.slice(headerEnd + 2);
      }
      if (first) first.spaceBefore = true;
      doc.contents.items.unshift(pair);
      return ['added `version: 1` at the top'];
    },
  },
];

/** What migrating one text did. */
export interface TextMigration {
  from: number;
  to: number;
  text: string;
  changes: string[];
}

/** Upgrades agent.yaml text to the current version; undefined when it is current (or not YAML). */
export function migrateAgentText(text: string, fileName: string): TextMigration | undefined {
  const doc = parseDocument(text);
  if (doc.errors.length > 0 || (doc.contents !== null && !isMap(doc.contents))) return undefined;
  const from = versionOf(doc, fileName);
  if (from === undefined || from === AGENT_CONFIG_VERSION) return undefined;
  const changes: string[] = [];
  for (let v = from; v < AGENT_CONFIG_VERSION; v++) {
    const step = MIGRATIONS.find((m) => m.from === v);
    if (!step) throw new Error(`no migration from agent.yaml version ${v}`);
    changes.push(...step.apply(doc));
  }
  return { from, to: AGENT_CONFIG_VERSION, text: doc.toString(), changes };
}

/** What migrating a file did; `backup` is absent when the file could not be written. */
export interface FileMigration extends TextMigration {
  file: string;
  backup?: string;
  /** Why the file was not rewritten (the upgraded text was used in memory). */
  notWritten?: string;
}

/** Migrates the file in place with a backup; undefined when it is current. */
export function migrateAgentFile(file: string): FileMigration | undefined {
  const original = readOrUndefined(file);
  const migration = original === undefined ? undefined : migrateAgentText(original, file);
  return original === undefined || !migration ? undefined : writeMigration(file, original, migration);
}

/**
 * Loads agent.yaml, migrating it first when it is older (see migrateAgentFile). The file is
 * validated before it is rewritten, against the text as written, so errors name the lines the
 * person sees and a broken file is never touched. A migration that cannot be written is applied
 * in memory. Throws ConfigError like loadAgentConfig.
 */
export function loadMigratedAgentConfig(
  file: string,
  options: LoadOptions = {},
): { config: AgentConfig; migration?: FileMigration } {
  const original = readOrUndefined(file);
  const migration = original === undefined ? undefined : migrateAgentText(original, file);
  if (original === undefined || !migration) return { config: loadAgentConfig(file, options) };
  // Version 0 has the keys of version 1, so the original validates (defaults add the version).
  parseAgentConfig(original, file, options);
  const written = writeMigration(file, original, migration);
  return { config: parseAgentConfig(migration.text, file, options), migration: written };
}

function writeMigration(file: string, original: string, migration: TextMigration): FileMigration {
  const backup = `${file}.v${migration.from}.bak`;
  try {
    const mode = statSync(file).mode & 0o777;
    copyFileSync(file, backup);
    chmodSync(backup, holdsSecrets(original) ? 0o600 : mode);
    writeFileAtomic(file, migration.text, mode);
    return { ...migration, file, backup };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    return { ...migration, file, notWritten: `${file} or ${backup} cannot be written (${code})` };
  }
}

function readOrUndefined(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined; // the loader reports an unreadable file
  }
}

/** Whether the text holds a literal secret (a reference like ${file:...} is not one). */
export function holdsSecrets(text: string): boolean {
  const literal = /^\s*(client_secret|password):\s*(?!\$\{(?:env|file):[^}]*\}\s*$)(?!["']?["']?\s*$)\S/m;
  return literal.test(text);
}

function versionOf(doc: Document, fileName: string): number | undefined {
  const value = doc.get('version') as unknown;
  if (value === undefined || value === null) return 0;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) return undefined;
  if (value > AGENT_CONFIG_VERSION) {
    throw new ConfigError([
      {
        file: fileName,
        line: 0,
        col: 0,
        field: 'version',
        rule: `version ${value} is newer than this PrintRelay understands (${AGENT_CONFIG_VERSION}): upgrade PrintRelay`,
      },
    ]);
  }
  return value;
}
