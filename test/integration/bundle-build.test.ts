/**
 * The bundle of scripts/build-bundle.ts, built into a directory of its own and run as a package
 * runs it (test/support/bundle-app.ts): its module graph keeps the boundaries of the sources (the
 * agent's chunks hold no emulator code and the emulator's none of the agent, the printers or the
 * card readers), it leaves out of the bundle only node's modules and the packages it names, the
 * pino-pretty transport starts in its worker thread from it, and with node's --enable-source-maps
 * a stack trace names the source files and lines.
 */
import { builtinModules } from 'node:module';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_EXTERNAL, BUNDLE_META } from '../../scripts/build-bundle.js';
import { type BundleApp, buildBundleApp } from '../support/bundle-app.js';
import { CliProcess } from './cli-process.js';

interface Output {
  entryPoint?: string;
  inputs: Record<string, unknown>;
  imports: { path: string; kind: string; external?: boolean }[];
}

const dir = mkdtempSync(join(tmpdir(), 'bundle-build-'));
let app: BundleApp;
let outputs: Record<string, Output>;

beforeAll(async () => {
  app = await buildBundleApp(dir);
  outputs = (
    JSON.parse(readFileSync(join(app.root, 'dist', BUNDLE_META), 'utf8')) as {
      outputs: Record<string, Output>;
    }
  ).outputs;
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The output file made for the dynamically imported module `entry` (src/...). */
function outputOf(entry: string): string {
  const found = Object.entries(outputs).find(([, output]) => output.entryPoint === entry);
  if (!found) throw new Error(`no output file has the entry ${entry}`);
  return found[0];
}

/** The source files loaded with `output`: its inputs and those of every file it imports statically. */
function staticInputs(output: string): string[] {
  const seen = new Set<string>();
  const pending = [output];
  for (let file = pending.pop(); file; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const imported of outputs[file]?.imports ?? []) {
      if (imported.kind === 'import-statement' && !imported.external) pending.push(imported.path);
    }
  }
  return [...seen].flatMap((file) => Object.keys(outputs[file]?.inputs ?? {}));
}

/** What `printrelay agent` loads: its command's chunks and the agent's, imported by the command. */
function agentInputs(): string[] {
  return [
    ...staticInputs(outputOf('src/cli/commands/agent.ts')),
    ...staticInputs(outputOf('src/agent/agent.ts')),
  ];
}

describe('the bundle (scripts/build-bundle.ts)', () => {
  it("keeps the boundaries: the agent's chunks hold no emulator code, the emulator's none of the agent, printers or card readers", () => {
    const agent = agentInputs();
    const emulator = staticInputs(outputOf('src/emulator/app.ts'));
    expect(agent).toContain('src/agent/agent.ts');
    expect(emulator).toContain('src/emulator/app.ts');
    expect(agent.filter((input) => input.startsWith('src/emulator/'))).toEqual([]);
    const notForTheEmulator = ['src/agent/', 'src/printing/', 'src/cardreader/'];
    expect(emulator.filter((input) => notForTheEmulator.some((prefix) => input.startsWith(prefix)))).toEqual(
      [],
    );
  });

  it('keeps the lazy imports lazy: release stations, copy-job counters and the other commands are chunks of their own', () => {
    const agent = agentInputs();
    outputOf('src/agent/release/release-stations.ts');
    expect(agent.filter((input) => input.startsWith('src/agent/release/'))).toEqual([]);
    expect(agent.filter((input) => input.includes('node_modules/net-snmp/'))).toEqual([]);
    const main = staticInputs(outputOf('src/cli/main.ts'));
    expect(main.filter((input) => input.startsWith('src/cli/commands/'))).toEqual([]);
  });

  it('leaves out only node modules and the packages it names', () => {
    const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
    const named = (path: string) =>
      BUNDLE_EXTERNAL.some((pattern) =>
        pattern.endsWith('/*')
          ? path.startsWith(pattern.slice(0, -1))
          : path === pattern || path.startsWith(`${pattern}/`),
      );
    const external = Object.values(outputs).flatMap((output) =>
      output.imports.filter((imported) => imported.external).map((imported) => imported.path),
    );
    expect(external).toContain('pino');
    expect([...new Set(external)].filter((path) => !builtins.has(path) && !named(path))).toEqual([]);
  });

  it('starts the pino-pretty transport in its worker thread', async () => {
    const config = join(dir, 'agent.yaml');
    writeFileSync(
      config,
      'version: 1\ncloud:\n  url: http://127.0.0.1:9\n  client_id: a\n  client_secret: b\n  username: c\n  password: d\n',
    );
    const agent = new CliProcess(
      ['agent', '--config', config, '--data-dir', join(dir, 'pretty'), '--pretty'],
      { NO_COLOR: '1' },
      [process.execPath, app.main],
    );
    try {
      await agent.waitFor(/^\[[\d:.]+\] INFO: agent starting$/m);
    } finally {
      await agent.stop();
    }
  });

  it('with --enable-source-maps, a stack trace names the source file and line', async () => {
    const cli = new CliProcess(
      ['agent', '--config', join(dir, 'agent.yaml'), '--data-dir', '/dev/null/agent'],
      { PRINTRELAY_DEBUG: '1' },
      [process.execPath, '--enable-source-maps', app.main],
    );
    expect(await cli.exited).toBe(1);
    expect(cli.stderr).toContain("ENOTDIR: not a directory, mkdir '/dev/null/agent'");
    expect(cli.stderr).toMatch(/at runAgent \(\S*\/src\/cli\/commands\/agent\.ts:\d+:\d+\)/);
  });
});
