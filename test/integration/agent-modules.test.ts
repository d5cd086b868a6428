/**
 * What a real `printrelay agent` process keeps in memory: with a minimal agent.yaml (one IPP
 * printer, no copy jobs, stations or discovery) it runs, registers and stops without loading the
 * emulator, the other commands, the libraries of features the file does not name, or Ajv's schema
 * compiler (its validators are generated at build time). The module trace
 * (test/support/module-trace) records every package, package file and src/ file the process
 * loads, by import and by require, up to its exit. The same holds for the process run from the
 * bundle (scripts/build-bundle.ts), as a package runs it: there the trace records the bundle's
 * output files, and the build's metafile says which sources and package files each one holds
 * (test/support/bundle-app.ts), so every check below reads the same names in both.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SQLITE_PACKAGE } from '../../src/lib/sqlite.js';
import { type EmulatorWithApp, startEmulatorWithApp } from '../support/agent-rig.js';
import { type BundleApp, buildBundleApp } from '../support/bundle-app.js';
import { demoCloudLines } from '../support/emulator-agent-config.js';
import { peersAvailable } from '../support/peers.js';
import { CliProcess } from './cli-process.js';

const enabled = peersAvailable('ippeveprinter') && inject('ippeveprinterUri') !== '';

/** Packages the agent must not load unless its configuration uses what they serve. */
const NOT_FOR_A_PLAIN_AGENT = [
  // the emulator's web server and its plugins, its upload parser and certificates
  'fastify',
  '@fastify/cookie',
  '@fastify/cors',
  '@fastify/formbody',
  '@fastify/swagger',
  '@fastify/swagger-ui',
  '@fastify/websocket',
  'busboy',
  'jose',
  'selfsigned',
  // copy-job counters over SNMP
  'net-snmp',
  // card readers
  'node-hid',
  'serialport',
  '@serialport/bindings-cpp',
  // cups:// printing, Windows printing and service, DNS-SD discovery
  'unix-print',
  'pdf-to-printer',
  'node-windows',
  'multicast-dns',
  // human log lines (the service logs JSON), the progress bar of `printrelay print`
  'pino-pretty',
  'cli-progress',
  // PDF libraries
  'pdf-lib',
  // the schema builder: configuration files are checked by validators generated at build time
  '@sinclair/typebox',
];

describe.skipIf(!enabled).each([
  ['the sources (tsx)', false],
  ['the bundle (dist/)', true],
])('the agent run from %s loads only what its configuration uses', (_from, bundled) => {
  let dir: string;
  let rig: EmulatorWithApp;
  let loaded: Set<string>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-modules-'));
    const bundle: BundleApp | undefined = bundled ? await buildBundleApp(dir) : undefined;
    rig = await startEmulatorWithApp(dir);
    const config = join(dir, 'agent.yaml');
    writeFileSync(
      config,
      [
        'version: 1',
        ...demoCloudLines(rig.base),
        'control:',
        '  port: 0',
        'printers:',
        '  - name: Modules Printer',
        `    uri: ${inject('ippeveprinterUri')}`,
        '',
      ].join('\n'),
    );
    const trace = join(dir, 'modules.txt');
    const agent = new CliProcess(
      ['agent', '--config', config, '--data-dir', join(dir, 'agent'), '--no-pretty'],
      {
        NODE_OPTIONS: `--import ${new URL('../support/module-trace/register.mjs', import.meta.url).pathname}`,
        PRINTRELAY_MODULE_TRACE: trace,
      },
      bundle ? [process.execPath, bundle.main] : undefined,
    );
    try {
      await agent.waitFor(/"msg":"agent running"/);
    } finally {
      await agent.stop();
    }
    const names = readFileSync(trace, 'utf8').split('\n').filter(Boolean);
    loaded = bundle ? bundle.expand(names) : new Set(names);
    // the bundle's own files were read through the metafile, not left as output names
    expect([...loaded].filter((name) => name.startsWith('dist/'))).toEqual([]);
    if (bundle) expect(names.some((name) => name.startsWith('dist/chunks/'))).toBe(true);
  }, 120_000);

  afterAll(async () => {
    await rig?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the trace sees imports and require() calls: the agent, undici, and the SQLite binding with what it requires', () => {
    // better-sqlite3 12 (Node 20) finds its compiled module with `bindings`; 13 loads a prebuilt one itself
    const sqlite =
      SQLITE_PACKAGE === 'better-sqlite3-node20' ? [SQLITE_PACKAGE, 'bindings'] : [SQLITE_PACKAGE];
    const seen = ['src/agent/agent.ts', 'src/cli/commands/agent.ts', 'undici', ...sqlite];
    expect(seen.filter((name) => loaded.has(name))).toEqual(seen);
  });

  it('loads none of the emulator, the other commands or the unused libraries', () => {
    expect([...loaded].filter((name) => name.startsWith('src/emulator/'))).toEqual([]);
    const otherCommands = [
      'src/cli/commands/demo.ts',
      'src/cli/commands/emulator.ts',
      'src/cli/commands/print.ts',
      'src/cli/commands/printers.ts',
      'src/cli/commands/doctor.ts',
      'src/cli/commands/card.ts',
      'src/cli/commands/swipe.ts',
      'src/cli/commands/service.ts',
      'src/cli/commands/status.ts',
      'src/cli/commands/config.ts',
    ];
    expect(otherCommands.filter((name) => loaded.has(name))).toEqual([]);
    // release stations, their card readers and UI load only once a station is configured
    const releaseParts = ['src/agent/release/', 'src/cardreader/'];
    expect([...loaded].filter((name) => releaseParts.some((prefix) => name.startsWith(prefix)))).toEqual([]);
    expect(NOT_FOR_A_PLAIN_AGENT.filter((name) => loaded.has(name))).toEqual([]);
  });

  it("validates its file with the agent's generated validator and never loads the emulator seed's", () => {
    expect(loaded.has('src/config/generated/agent-config-validator.ts')).toBe(true);
    expect(loaded.has('src/config/generated/emulator-seed-validator.ts')).toBe(false);
  });

  it('loads of undici only Pool, Agent and the request API (src/client/undici-core.ts), never its entry with fetch, WebSocket and caches', () => {
    const undiciFiles = [...loaded].filter((n) => n.startsWith('undici/'));
    expect(undiciFiles).toContain('undici/lib/dispatcher/pool.js');
    expect(undiciFiles).toContain('undici/lib/api/api-request.js');
    const unused = [
      'undici/index.js',
      'undici/lib/web/',
      'undici/lib/cache/',
      'undici/lib/mock/',
      'undici/lib/interceptor/',
    ];
    expect(undiciFiles.filter((n) => unused.some((prefix) => n.startsWith(prefix)))).toEqual([]);
  });

  it('checks agent.yaml with the generated validator: of Ajv only its run-time helpers, never its compiler', () => {
    const ofPackage = (name: string) => [...loaded].filter((n) => n.startsWith(`${name}/`)).sort();
    expect(loaded.has('src/config/generated/agent-config-validator.ts')).toBe(true);
    expect(ofPackage('ajv')).toEqual(['ajv/dist/runtime/equal.js', 'ajv/dist/runtime/ucs2length.js']);
    expect(ofPackage('ajv-formats')).toEqual(['ajv-formats/dist/formats.js']);
  });
});
