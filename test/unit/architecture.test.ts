import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { architectureDocViolations } from '../support/architecture-doc.js';
import {
  crossDomainRepositoryImports,
  crossDomainTableReads,
  sharedFolderViolations,
  storeReachIns,
  tableOwnerViolations,
} from '../support/emulator-domains.js';
import { checkArchitecture, cycles, readImports } from '../support/import-graph.js';
import { wholeContextHolders } from '../support/context-holders.js';

const srcDir = fileURLToPath(new URL('../../src/', import.meta.url));
const rootDir = fileURLToPath(new URL('../../', import.meta.url));

/** The repository's files (repo-relative; no dependencies, no git) and the folders of src/. */
function treeOf(root: string): { srcFolders: string[]; files: string[] } {
  const files: string[] = [];
  const srcFolders: string[] = [];
  for (const top of readdirSync(root, { withFileTypes: true })) {
    if (top.name === 'node_modules' || top.name === '.git') continue;
    if (top.isFile()) files.push(top.name);
    if (!top.isDirectory()) continue;
    for (const entry of readdirSync(join(root, top.name), { recursive: true, withFileTypes: true })) {
      const path = relative(root, join(entry.parentPath, entry.name)).split('\\').join('/');
      if (path.includes('node_modules/')) continue;
      if (entry.isFile()) files.push(path);
      else if (entry.isDirectory() && top.name === 'src') srcFolders.push(path.slice('src/'.length));
    }
  }
  return { srcFolders, files };
}

function sourcesOf(dir: string): Map<string, string> {
  const sources = new Map<string, string>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const path = join(entry.parentPath, entry.name);
    sources.set(relative(dir, path).split('\\').join('/'), readFileSync(path, 'utf8'));
  }
  return sources;
}

describe('the architecture of src/', () => {
  it('keeps every rule: layers, emulator and agent apart, pure code pure, no cycles', () => {
    const edges = readImports(sourcesOf(srcDir));
    expect(edges.length).toBeGreaterThan(500);
    expect(checkArchitecture(edges)).toEqual([]);
  });
});

describe("the emulator's domains", () => {
  const sources = sourcesOf(srcDir);
  const edges = readImports(sources);

  it('write each table from its owning domain only (the owner map covers every table the migrations create)', () => {
    expect(tableOwnerViolations(sources)).toEqual([]);
  });

  it('keep domain code out of the shared folders store/, http/ and web/', () => {
    expect(sharedFolderViolations(edges)).toEqual([]);
  });

  it("reach another domain's repositories only through its face", () => {
    expect(crossDomainRepositoryImports(edges)).toEqual([]);
  });

  it("never reach through the store into another domain's repositories (each goes through the owner's face)", () => {
    expect(storeReachIns(sources)).toEqual([]);
  });

  it("never read another domain's tables with their own SQL (each asks the owner's face)", () => {
    expect(crossDomainTableReads(sources)).toEqual([]);
  });

  it('still find a table read added to the real sources (FROM or JOIN a table another domain owns)', () => {
    const added = new Map(sources);
    added.set(
      'emulator/drivers/added-count.ts',
      "db.prepare('SELECT COUNT(*) FROM printers WHERE driver_id = ?')",
    );
    added.set('emulator/http/added-origins.ts', "'SELECT u.id FROM users u JOIN oauth_clients c ON 1'");
    expect(crossDomainTableReads(added)).toEqual([
      'emulator/drivers/added-count.ts reads printers (owner printers)',
      'emulator/http/added-origins.ts reads oauth_clients (owner clients)',
      'emulator/http/added-origins.ts reads users (owner accounts)',
    ]);
  });

  it('still find a reach-in added to the real sources (the check reads the real store, so none found means none)', () => {
    const added = new Map(sources);
    added.set(
      'emulator/sandbox/faults/added-rule.ts',
      'const job = context.store.jobs.findById(id); const own = this.store.webhookEndpoints;',
    );
    added.set('emulator/jobs/added-offer.ts', 'this.store.jobs.findById(id); store.printers.findById(id);');
    expect(storeReachIns(added)).toEqual([
      'jobs -> printers: store.printers',
      'sandbox -> jobs: store.jobs',
      'sandbox -> webhooks: store.webhookEndpoints',
    ]);
  });

  it('get only the context they use: no module but the composition root holds the whole EmulatorContext', () => {
    expect(wholeContextHolders(sources, edges)).toEqual([]);
  });
});

describe('docs/architecture.md', () => {
  it('lists every folder of src/ and names only paths that exist', () => {
    const doc = readFileSync(join(rootDir, 'docs/architecture.md'), 'utf8');
    expect(architectureDocViolations(doc, treeOf(rootDir))).toEqual([]);
  });

  it('is checked: a folder left out and a path that does not exist are found', () => {
    const tree = {
      srcFolders: ['emulator', 'emulator/pull', 'emulator/pull/tpfm'],
      files: [
        'src/emulator/app.ts',
        'src/emulator/pull/pull-services.ts',
        'src/emulator/pull/tpfm/tpfm-wire.ts',
      ],
    };
    expect(
      architectureDocViolations('`emulator/` `pull/` `emulator/app.ts` `pull/gone.ts` `spec.md`', tree),
    ).toEqual([
      'folder not in docs/architecture.md: src/emulator/pull/tpfm/',
      'docs/architecture.md names a path that does not exist: pull/gone.ts',
      'docs/architecture.md names a path that does not exist: spec.md',
    ]);
  });
});

describe('the domain checks, on fixtures that break each rule on purpose', () => {
  const owners = { users: 'accounts', printers: 'printers' };

  it('finds a table written outside its owning domain, one named at run time and one without an owner', () => {
    const sources = new Map([
      ['emulator/accounts/user-repo.ts', "db.prepare('UPDATE users SET name = ? WHERE id = ?')"],
      ['emulator/groups/printing-user-repo.ts', 'db.prepare(`UPDATE users SET flag = 1 WHERE id = ?`)'],
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the fixture is source text that names its table at run time
      ['emulator/accounts/organization-repo.ts', 'db.prepare(`DELETE FROM ${table} WHERE id = ?`)'],
      [
        'emulator/printers/printer-repo.ts',
        "db.prepare('INSERT OR IGNORE INTO printer_notes (id) VALUES (?)')",
      ],
      [
        'emulator/store/migrations.ts',
        'CREATE TABLE users (id TEXT); CREATE TABLE IF NOT EXISTS printers (id TEXT);',
      ],
    ]);
    expect(tableOwnerViolations(sources, owners)).toEqual([
      'table users (owner accounts) written by emulator/groups/printing-user-repo.ts',
      'table named at run time: emulator/accounts/organization-repo.ts writes a table whose name is not in its SQL',
      'table without an owner: printer_notes (written by emulator/printers/printer-repo.ts)',
    ]);
  });

  it('finds a table the migrations create that the owner map leaves out, and an owner of no table', () => {
    const sources = new Map([
      ['emulator/store/migrations.ts', 'CREATE TABLE users (id TEXT); CREATE TABLE cards (n TEXT);'],
    ]);
    expect(tableOwnerViolations(sources, owners)).toEqual([
      'table without an owner: cards (created by the migrations)',
      'owner map names a table the migrations never create: printers',
    ]);
  });

  it("finds a shared folder importing a domain, and a domain importing another domain's repository", () => {
    const edges = readImports(
      new Map([
        [
          'emulator/http/http-errors.ts',
          "import { OAuthGrantError } from '../oauth/oauth-errors.js';\nimport { x } from './schemas.js';",
        ],
        ['emulator/store/seed-loader.ts', "import type { EmulatorStore } from '../emulator-store.js';"],
        ['emulator/jobs/job-service.ts', "import type { PrinterRecord } from '../printers/printer-repo.js';"],
        [
          'emulator/pull/tpfm/tpfm-auth.ts',
          "import type { PrinterRecord } from '../../printers/printers-face.js';",
        ],
        ['emulator/emulator-store.ts', "import { PrinterRepo } from './printers/printer-repo.js';"],
      ]),
    );
    expect(sharedFolderViolations(edges)).toEqual([
      'shared folder imports domain code: emulator/http/http-errors.ts -> emulator/oauth/oauth-errors.ts',
      'shared folder imports domain code: emulator/store/seed-loader.ts -> emulator/emulator-store.ts',
    ]);
    expect(crossDomainRepositoryImports(edges)).toEqual([
      'type repository of printers imported by emulator/jobs/job-service.ts: emulator/printers/printer-repo.ts (use emulator/printers/printers-face.ts)',
    ]);
  });

  it('finds a module holding the whole context, by import or through the Fastify instance', () => {
    const sources = new Map([
      ['emulator/app.ts', "import type { EmulatorContext } from './context.js';\napp.emulator.hub.stop();"],
      ['emulator/app-routes.ts', "import type { EmulatorContext } from './context.js';"],
      ['emulator/context.ts', 'declare module "fastify" { interface FastifyInstance { emulator: X } }'],
      ['emulator/printers/printer-routes.ts', "import type { EmulatorContext } from '../context.js';"],
      ['emulator/jobs/job-routes.ts', "import { type RoutePlugin } from '../http/route-plugin.js';"],
      ['emulator/accounts/bearer-auth.ts', 'const t = await request.server.emulator.tokens.verify(x);'],
      ['cli/demo.ts', "export type { EmulatorContext } from '../emulator/context.js';"],
    ]);
    expect(wholeContextHolders(sources, readImports(sources))).toEqual([
      'imports the whole EmulatorContext: cli/demo.ts',
      'imports the whole EmulatorContext: emulator/printers/printer-routes.ts',
      'reaches the whole EmulatorContext through Fastify: emulator/accounts/bearer-auth.ts',
    ]);
  });

  it("finds a domain reading another domain's table with its own SQL (joins included, the migrations left out)", () => {
    const sources = new Map([
      [
        'emulator/sandbox/console/console-snapshot.ts',
        "db.prepare('SELECT j.id, u.email FROM jobs j JOIN users u ON u.id = j.user_id')",
      ],
      ['emulator/jobs/job-repo.ts', "db.prepare('SELECT * FROM jobs WHERE id = ?')"],
      ['emulator/accounts/user-repo.ts', "db.prepare('SELECT * FROM users WHERE id = ?')"],
      ['emulator/store/migrations.ts', 'INSERT INTO jobs SELECT * FROM users;'],
    ]);
    expect(crossDomainTableReads(sources, { jobs: 'jobs', users: 'accounts' })).toEqual([
      'emulator/sandbox/console/console-snapshot.ts reads jobs (owner jobs)',
      'emulator/sandbox/console/console-snapshot.ts reads users (owner accounts)',
    ]);
  });

  it("finds a domain reaching through the store into another domain's repository", () => {
    const store = [
      "import { UserRepo } from './accounts/user-repo.js';",
      "import { JobRepo } from './jobs/job-repo.js';",
      'export class EmulatorStore {',
      '  readonly users: UserRepo;',
      '  readonly jobs: JobRepo;',
      '}',
    ].join('\n');
    const sources = new Map([
      ['emulator/emulator-store.ts', store],
      ['emulator/jobs/job-service.ts', 'this.store.jobs.insert(job); this.store.users.findById(id);'],
      ['emulator/accounts/user-sign-in.ts', 'this.store.users.findByEmail(email);'],
      ['emulator/seed-loader.ts', 'store.users.insert(user); store.jobs.count();'],
    ]);
    expect(storeReachIns(sources)).toEqual(['jobs -> accounts: store.users']);
  });
});

describe('the checker, on fixtures that break each rule on purpose', () => {
  const check = (files: Record<string, string>) =>
    checkArchitecture(readImports(new Map(Object.entries(files))));

  it('finds an upward import from the store into the agent', () => {
    expect(
      check({
        'store/sync-state-store.ts': "import type { SyncState } from '../agent/printer-sync/sync-types.js';",
        'agent/printer-sync/sync-types.ts': 'export interface SyncState { printers: string[] }',
      }),
    ).toEqual([
      'upward import store -> agent: store/sync-state-store.ts -> agent/printer-sync/sync-types.ts',
    ]);
  });

  it('finds the emulator and the agent importing each other', () => {
    expect(
      check({
        'emulator/jobs/job-service.ts': "import { JobLoop } from '../../agent/jobs/job-loop.js';",
        'agent/agent.ts': "export { createEmulator } from '../emulator/app.js';",
        'agent/jobs/job-loop.ts': 'export class JobLoop {}',
        'emulator/app.ts': 'export function createEmulator() {}',
      }),
    ).toEqual([
      'emulator imports agent: emulator/jobs/job-service.ts -> agent/jobs/job-loop.ts',
      'sideways import agent -> emulator: agent/agent.ts -> emulator/app.ts',
    ]);
  });

  it('finds the emulator importing a printing backend', () => {
    expect(
      check({ 'emulator/app.ts': "import { IppBackend } from '../printing/ipp/ipp-backend.js';" }),
    ).toEqual(['emulator imports printing: emulator/app.ts -> printing/ipp/ipp-backend.ts']);
  });

  it('finds I/O reached from pure code, directly and through another file', () => {
    expect(
      check({
        'protocol/tpfm-ini.ts': "import { readFileSync } from 'node:fs';",
        'printing/translate/ticket-to-ipp.ts': "import { send } from '../ipp/ipp-client.js';",
        'printing/ipp/ipp-client.ts': "import { request } from 'undici';",
      }),
    ).toEqual([
      'I/O in pure code: protocol/tpfm-ini.ts -> node:fs',
      'I/O in pure code: printing/translate/ticket-to-ipp.ts -> printing/ipp/ipp-client.ts -> undici',
    ]);
  });

  it('lets pure code import types of I/O code (erased at run time)', () => {
    expect(
      check({
        'printing/translate/ticket-to-ipp.ts': "import type { IppClient } from '../ipp/ipp-client.js';",
        'printing/ipp/ipp-client.ts': "import { request } from 'undici';",
      }),
    ).toEqual([]);
  });

  it('finds an import cycle, type-only imports included', () => {
    const files = {
      'agent/release/release-station.ts': "import { ReleaseSession } from './release-session.js';",
      'agent/release/release-session.ts':
        "import type { ReleaseStationSettings } from './release-station.js';",
    };
    expect(check(files)).toEqual([
      'cycle: agent/release/release-session.ts -> agent/release/release-station.ts -> agent/release/release-session.ts',
    ]);
    expect(cycles(readImports(new Map(Object.entries(files))))).toHaveLength(1);
  });

  it('reads multi-line, re-exported and dynamic imports', () => {
    const edges = readImports(
      new Map([
        [
          'cli/main.ts',
          "import {\n  a,\n  b,\n} from './a.js';\nexport * from './b.js';\nconst c = await import('./c.js');\nimport { type T } from './t.js';",
        ],
      ]),
    );
    expect(edges.map((e) => [e.target, e.typeOnly])).toEqual([
      ['cli/a.ts', false],
      ['cli/b.ts', false],
      ['cli/c.ts', false],
      ['cli/t.ts', true],
    ]);
  });
});
