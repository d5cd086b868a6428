/**
 * The emulator's domain rules (docs/architecture.md), checked on its sources by
 * test/unit/architecture.test.ts: each table has one owning domain and only that domain's files
 * write it (the owner map below, checked against the SQL in the sources and the tables the
 * migrations create), the shared folders hold infrastructure only (no import of a domain), and
 * a domain reaches another domain's repositories only through that domain's face, never by its
 * own SQL over another domain's tables.
 */
import { posix } from 'node:path';
import type { ImportEdge } from './import-graph.js';

/** Each table of the emulator's database and the domain folder (under emulator/) that owns it. */
export const TABLE_OWNERS: Readonly<Record<string, string>> = {
  organizations: 'accounts',
  users: 'accounts',
  user_cards: 'accounts',
  memberships: 'accounts',
  invitations: 'accounts',
  mail_outbox: 'accounts',
  oauth_clients: 'clients',
  oauth_client_creations: 'clients',
  oauth_codes: 'oauth',
  oauth_pairings: 'oauth',
  oauth_sessions: 'oauth',
  refresh_tokens: 'oauth',
  refresh_retries: 'oauth',
  revoked_families: 'oauth',
  revoked_access_tokens: 'oauth',
  signing_keys: 'oauth',
  printers: 'printers',
  printer_settings: 'printers',
  printer_capabilities: 'printers',
  printer_driver_states: 'drivers',
  connectors: 'connectors',
  jobs: 'jobs',
  job_events: 'jobs',
  stored_files: 'files',
  printing_groups: 'groups',
  group_members: 'groups',
  printer_group_assignments: 'groups',
  pull_queues: 'pull',
  held_jobs: 'pull',
  held_job_releases: 'pull',
  local_jobs: 'pull',
  registration_codes: 'pull',
  webhook_endpoints: 'webhooks',
  webhook_settings: 'webhooks',
  webhook_deliveries: 'webhooks',
  webhook_retry_runs: 'webhooks',
  webhook_events: 'webhooks',
  webhook_queue: 'webhooks',
};

/** The emulator's shared folders: infrastructure only, they import no domain. */
export const SHARED_FOLDERS: readonly string[] = ['store', 'http', 'web'];

/** Files that write tables as the database's own machinery: the migrations and their log. */
const SCHEMA_FILES: readonly string[] = ['emulator/store/migrations.ts', 'emulator/store/database.ts'];

const WRITE = [
  /\bINSERT\s+(?:OR\s+[A-Z]+\s+)?INTO\s+(\$\{|[a-z_]+)/g,
  /\bREPLACE\s+INTO\s+(\$\{|[a-z_]+)/g,
  /\bUPDATE\s+(\$\{|[a-z_]+)\s+(?:INDEXED\s+BY\s+[a-z_]+\s+)?SET\b/g,
  /\bDELETE\s+FROM\s+(\$\{|[a-z_]+)/g,
];

/** The domain folder of an emulator file (`emulator/<domain>/...`), or undefined. */
export function domainOf(file: string): string | undefined {
  const parts = file.split('/');
  return parts[0] === 'emulator' && parts.length > 2 ? parts[1] : undefined;
}

/** The tables each emulator file writes (`${` for a table named at run time). */
export function tableWrites(sources: ReadonlyMap<string, string>): { file: string; table: string }[] {
  const writes: { file: string; table: string }[] = [];
  for (const [file, text] of sources) {
    if (!file.startsWith('emulator/') || SCHEMA_FILES.includes(file)) continue;
    for (const pattern of WRITE) {
      for (const match of text.matchAll(pattern)) writes.push({ file, table: match[1] ?? '' });
    }
  }
  return writes;
}

/** The tables the migrations create. */
export function createdTables(migrations: string): string[] {
  return [
    ...new Set(
      [...migrations.matchAll(/CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([a-z_]+)/g)].map((m) => m[1] ?? ''),
    ),
  ];
}

/** Every write outside the owning domain, every table without an owner, every owner of no table. */
export function tableOwnerViolations(
  sources: ReadonlyMap<string, string>,
  owners: Readonly<Record<string, string>> = TABLE_OWNERS,
): string[] {
  const found: string[] = [];
  for (const { file, table } of tableWrites(sources)) {
    if (table === '${') {
      found.push(`table named at run time: ${file} writes a table whose name is not in its SQL`);
      continue;
    }
    const owner = owners[table];
    if (owner === undefined) found.push(`table without an owner: ${table} (written by ${file})`);
    else if (domainOf(file) !== owner) found.push(`table ${table} (owner ${owner}) written by ${file}`);
  }
  const migrations = sources.get('emulator/store/migrations.ts');
  if (migrations !== undefined) {
    const created = createdTables(migrations);
    for (const table of created) {
      if (owners[table] === undefined)
        found.push(`table without an owner: ${table} (created by the migrations)`);
    }
    for (const table of Object.keys(owners)) {
      if (!created.includes(table))
        found.push(`owner map names a table the migrations never create: ${table}`);
    }
  }
  return found;
}

/** Imports from a shared folder of the emulator into a domain or the emulator's composition. */
export function sharedFolderViolations(edges: readonly ImportEdge[]): string[] {
  const found: string[] = [];
  for (const edge of edges) {
    if (!edge.project || !SHARED_FOLDERS.includes(domainOf(edge.from) ?? '')) continue;
    if (!edge.target.startsWith('emulator/')) continue;
    const to = domainOf(edge.target);
    if (to === undefined || !SHARED_FOLDERS.includes(to)) {
      found.push(`shared folder imports domain code: ${edge.from} -> ${edge.target}`);
    }
  }
  return found;
}

/** The face of a domain: the one module other domains may import its repositories' types from. */
export function faceOf(domain: string): string {
  return `emulator/${domain}/${domain}-face.ts`;
}

/** Imports of another domain's repository (`*-repo.ts`) by a domain file, types included. */
export function crossDomainRepositoryImports(edges: readonly ImportEdge[]): string[] {
  const found: string[] = [];
  for (const edge of edges) {
    if (!edge.project) continue;
    const from = domainOf(edge.from);
    const to = domainOf(edge.target);
    if (from === undefined || to === undefined || from === to) continue;
    if (posix.basename(edge.target).endsWith('-repo.ts')) {
      found.push(
        `${edge.typeOnly ? 'type ' : ''}repository of ${to} imported by ${edge.from}: ${edge.target} (use ${faceOf(to)})`,
      );
    }
  }
  return found;
}

/**
 * Each member of EmulatorStore (emulator-store.ts) and the domain its repository belongs to,
 * read from the store's imports and fields.
 */
export function storeMembers(storeSource: string): Map<string, string> {
  const domainOfClass = new Map<string, string>();
  for (const m of storeSource.matchAll(/import\s*\{\s*(\w+)\s*\}\s*from\s*'\.\/(\w[\w-]*)\/[\w-]+\.js'/g)) {
    domainOfClass.set(m[1] ?? '', m[2] ?? '');
  }
  const members = new Map<string, string>();
  for (const m of storeSource.matchAll(/readonly\s+(\w+)\s*:\s*(\w+)\s*;/g)) {
    const domain = domainOfClass.get(m[2] ?? '');
    if (domain) members.set(m[1] ?? '', domain);
  }
  return members;
}

/**
 * Where a domain reaches through the store into another domain's repository
 * (`store.<member>` of a repository it does not own), one line per domain and member, sorted.
 */
export function storeReachIns(sources: ReadonlyMap<string, string>): string[] {
  const members = storeMembers(sources.get('emulator/emulator-store.ts') ?? '');
  const found = new Set<string>();
  for (const [file, text] of sources) {
    const from = domainOf(file);
    if (from === undefined) continue;
    for (const m of text.matchAll(/\bstore\.(\w+)\b/g)) {
      const owner = members.get(m[1] ?? '');
      if (owner !== undefined && owner !== from) found.add(`${from} -> ${owner}: store.${m[1]}`);
    }
  }
  return [...found].sort();
}

/**
 * Where an emulator file reads a table another domain owns with its own SQL (`FROM` or `JOIN`
 * the table), instead of asking the owner's face: one line per file and table, sorted. The
 * migrations are the schema's own and are left out.
 */
export function crossDomainTableReads(
  sources: ReadonlyMap<string, string>,
  owners: Readonly<Record<string, string>> = TABLE_OWNERS,
): string[] {
  const found = new Set<string>();
  for (const [file, text] of sources) {
    if (!file.startsWith('emulator/') || SCHEMA_FILES.includes(file)) continue;
    const from = domainOf(file);
    for (const m of text.matchAll(/\b(?:FROM|JOIN)\s+([a-z_]+)\b/g)) {
      const table = m[1] ?? '';
      const owner = owners[table];
      if (owner !== undefined && owner !== from) found.add(`${file} reads ${table} (owner ${owner})`);
    }
  }
  return [...found].sort();
}
