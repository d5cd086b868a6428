import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatSurvey, runPrintersSurvey } from '../../../../src/cli/commands/printers.js';
import { configuredCandidates, listedPrinters } from '../../../../src/cli/printers-selection.js';
import { silentLogger } from '../../../../src/log/logger.js';
import { BackendRegistry } from '../../../../src/printing/backend-registry.js';
import { CupsDiscoverer } from '../../../../src/printing/cups/cups-printers.js';
import type { DiscoveryResult, PrinterDiscoverer } from '../../../../src/printing/discovery/discovery.js';
import { DnsSdDiscoverer } from '../../../../src/printing/discovery/dnssd-discovery.js';
import type { PrinterFilter } from '../../../../src/printing/discovery/printer-filter.js';
import {
  cupsServerFromEnv,
  machineDiscoverers,
} from '../../../../src/printing/discovery/machine-discoverers.js';
import { candidatesOf, surveyPrinters } from '../../../../src/printing/discovery/printer-survey.js';
import type { PrinterBackend } from '../../../../src/printing/printer-backend.js';
import { WindowsDiscoverer } from '../../../../src/printing/windows/windows-discovery.js';
import { freePort } from '../../../support/peers.js';
import { writeAgentYaml } from '../../../support/agent-yaml.js';

const logger = silentLogger();
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('machineDiscoverers', () => {
  it.each([
    ['linux', false, [CupsDiscoverer]],
    ['darwin', true, [CupsDiscoverer, DnsSdDiscoverer]],
    ['win32', false, [WindowsDiscoverer]],
    ['win32', true, [WindowsDiscoverer, DnsSdDiscoverer]],
  ] as const)('%s with dnssd %s', (platform, dnssd, types) => {
    const list = machineDiscoverers({ logger, platform, dnssd, env: {} });
    expect(list.map((d) => d.constructor)).toEqual(types);
  });

  it.each([
    [{}, { host: 'localhost', port: 631 }],
    [{ CUPS_SERVER: 'printhost' }, { host: 'printhost', port: 631 }],
    [{ CUPS_SERVER: '127.0.0.1:8631' }, { host: '127.0.0.1', port: 8631 }],
    [{ CUPS_SERVER: '[::1]:8631' }, { host: '::1', port: 8631 }],
    [{ CUPS_SERVER: '/run/cups/cups.sock' }, { host: 'localhost', port: 631 }],
  ])('CUPS server from %j', (env, server) => {
    expect(cupsServerFromEnv(env)).toEqual(server);
  });
});

/** A backend standing in for a printer that answers describe() with fixed IPP attributes. */
function fixedBackend(uri: string, closed: string[]): PrinterBackend {
  const attributes = {
    'printer-name': 'Bench',
    'printer-make-and-model': 'Bench Printer',
    'printer-state': 3,
    'printer-state-reasons': 'none',
    'document-format-supported': ['application/pdf'],
    'media-supported': ['iso_a4_210x297mm'],
    'media-default': 'iso_a4_210x297mm',
    'sides-supported': ['one-sided', 'two-sided-long-edge'],
    'color-supported': true,
  };
  return {
    uri,
    describe: async () => ({
      uri,
      name: 'Bench',
      makeAndModel: 'Bench Printer',
      state: 'idle',
      stateReasons: ['none'],
      documentFormats: ['application/pdf'],
      attributes,
    }),
    submit: async () => ({ printerJobId: '1' }),
    jobState: async () => ({ state: 'completed', reasons: [] }),
    cancel: async () => undefined,
    close: async () => {
      closed.push(uri);
    },
  };
}

describe('surveyPrinters', () => {
  it('describes each candidate, maps its properties, reports failures per row and closes backends', async () => {
    const closed: string[] = [];
    const registry = new BackendRegistry();
    registry.register('bench', (url) => fixedBackend(url.href, closed));
    const rows = await surveyPrinters(
      [
        { name: 'Bench', uri: 'bench://one', source: 'config' },
        { name: 'Ghost', uri: 'nope://x', source: 'config' },
      ],
      { registry, dataDir: '/tmp', logger },
    );
    expect(rows[0]).toMatchObject({ name: 'Bench', ok: true, state: 'idle', makeAndModel: 'Bench Printer' });
    expect(rows[0]?.properties).toMatchObject({
      ColorSupported: true,
      DuplexSupported: true,
      MediaSupported: ['A4'],
    });
    expect(rows[1]).toMatchObject({
      name: 'Ghost',
      ok: false,
      error: expect.stringContaining("unknown printer scheme 'nope'"),
    });
    expect(closed).toEqual(['bench://one']);
    expect(formatSurvey({ printers: rows, failedSources: [{ source: 'cups', error: 'down' }] })).toEqual([
      'Bench  bench://one  [config]  idle (none)',
      '  model: Bench Printer',
      '  color: yes  duplex: yes',
      '  paper: A4',
      expect.stringMatching(/^ {2}resolutions: /),
      expect.stringMatching(
        /^Ghost {2}nope:\/\/x {2}\[config\] {2}ERROR: uri: unknown printer scheme 'nope'/,
      ),
      'discovery failed (cups): down',
    ]);
  });

  it('splits discovery results into candidates and failed sources', () => {
    expect(
      candidatesOf([
        { source: 'cups', ok: true, printers: [{ name: 'A', uri: 'cups://A', source: 'cups' }] },
        { source: 'dnssd', ok: false, error: 'no network' },
      ]),
    ).toEqual({
      candidates: [{ name: 'A', uri: 'cups://A', source: 'cups' }],
      failed: [{ source: 'dnssd', error: 'no network' }],
    });
    expect(formatSurvey({ printers: [], failedSources: [] })).toEqual(['no printers']);
  });
});

describe('runPrintersSurvey with a configuration', () => {
  it('describes the enabled configured printers and applies the lists', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'printers-cmd-'));
    dirs.push(dir);
    const port = await freePort();
    const file = writeAgentYaml(dir, 'agent.yaml', [
      'printers:',
      `  - { name: Front, uri: "cups://Front?server=127.0.0.1:${port}" }`,
      `  - { name: Back, uri: "cups://Back?server=127.0.0.1:${port}" }`,
      `  - { name: Off, uri: "cups://Off?server=127.0.0.1:${port}", enabled: false }`,
    ]);
    const survey = await runPrintersSurvey({ config: file, deny: ['Back'] });
    expect(survey.failedSources).toEqual([]);
    expect(survey.printers).toEqual([
      {
        name: 'Front',
        uri: `cups://Front?server=127.0.0.1:${port}`,
        source: 'config',
        ok: false,
        error: expect.stringMatching(/unreachable/),
      },
    ]);
  });

  it('refuses empty glob patterns, naming the flag', async () => {
    await expect(runPrintersSurvey({ allow: [''] })).rejects.toThrow(
      'allow[0]: glob pattern must not be empty',
    );
  });
});

/** A discovery source answering with a fixed result. */
function fixedSource(result: DiscoveryResult): PrinterDiscoverer {
  return { source: result.source, discover: async () => result };
}

describe('which printers `printers --config` lists (the allow/deny combination rule)', () => {
  const found = (name: string, uri: string) => ({ name, uri, source: 'cups' });
  const cups: DiscoveryResult = {
    source: 'cups',
    ok: true,
    printers: [
      found('Office-1', 'cups://Office-1'),
      found('Office-2', 'cups://Office-2'),
      found('Office-Fax', 'cups://Office-Fax'),
      found('Lobby', 'cups://Lobby'),
      found('front', 'cups://front-copy'),
      found('Office-Dup', 'ipp://10.0.0.5/ipp/print'),
    ],
  };
  const configured = [
    { name: 'Front', uri: 'ipp://10.0.0.5/ipp/print', enabled: true },
    { name: 'Off', uri: 'ipp://10.0.0.6/ipp/print', enabled: false },
  ];
  const config = (allow: string[], deny: string[]) => ({
    printers: configured,
    discovery: { cups: true, winspool: false, dnssd: false, interval_s: 300, allow, deny },
  });

  type Case = [string, string[], string[], PrinterFilter, string[]];
  it.each<Case>([
    ['no lists anywhere', [], [], {}, ['Front', 'Office-1', 'Office-2', 'Office-Fax', 'Lobby']],
    [
      'config lists filter discovered printers only (the static one stays)',
      ['Office-*'],
      ['*Fax*'],
      {},
      ['Front', 'Office-1', 'Office-2'],
    ],
    [
      'flags narrow the config result further',
      ['Office-*'],
      ['*Fax*'],
      { deny: ['*-2'] },
      ['Front', 'Office-1'],
    ],
    [
      'flags apply to static printers too',
      ['Office-*'],
      [],
      { allow: ['cups://*'] },
      ['Office-1', 'Office-2', 'Office-Fax'],
    ],
    ['a flag cannot bring back what the config denies', [], ['Lobby'], { allow: ['Lobby'] }, []],
    [
      'a name or URI clash is decided before the flags, as the agent does',
      [],
      [],
      { deny: ['ipp://10.0.0.5/*'] },
      ['Office-1', 'Office-2', 'Office-Fax', 'Lobby'],
    ],
  ])('%s', async (_, allow, deny, flags, names) => {
    const listed = await configuredCandidates(config(allow, deny), flags, {
      logger,
      discoverers: [fixedSource(cups)],
    });
    expect(listed.failed).toEqual([]);
    expect(listed.candidates.map((c) => c.name)).toEqual(names);
  });

  it('keeps the source of each printer', () => {
    expect(listedPrinters(configured, [cups], { allow: ['Front', 'Lobby'] }, logger)).toEqual([
      { name: 'Front', uri: 'ipp://10.0.0.5/ipp/print', source: 'config' },
      { name: 'Lobby', uri: 'cups://Lobby', source: 'cups' },
    ]);
  });

  it("reports a failed source by name without hiding the other sources' printers", async () => {
    const listed = await configuredCandidates(
      config([], ['*Fax*']),
      {},
      {
        logger,
        discoverers: [fixedSource(cups), fixedSource({ source: 'dnssd', ok: false, error: 'no network' })],
      },
    );
    expect(listed.failed).toEqual([{ source: 'dnssd', error: 'no network' }]);
    expect(listed.candidates.map((c) => c.name)).toEqual(['Front', 'Office-1', 'Office-2', 'Lobby']);
  });
});

describe('runPrintersSurvey with a discovery section', () => {
  it('runs the configured CUPS discovery and reports an unreachable server as a failed source', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'printers-cmd-'));
    dirs.push(dir);
    const port = await freePort();
    const file = writeAgentYaml(dir, 'agent.yaml', [
      'discovery:',
      '  cups: true',
      `  cups_server: "127.0.0.1:${port}"`,
      'printers:',
      `  - { name: Front, uri: "cups://Front?server=127.0.0.1:${port}" }`,
    ]);
    const survey = await runPrintersSurvey({ config: file });
    expect(survey.failedSources).toEqual([{ source: 'cups', error: expect.stringMatching(/unreachable/) }]);
    expect(survey.printers.map((p) => [p.name, p.source])).toEqual([['Front', 'config']]);
    expect(formatSurvey(survey).at(-1)).toMatch(/^discovery failed \(cups\): .*unreachable/);
  });

  it('refuses --dnssd with --config (the config decides)', async () => {
    await expect(runPrintersSurvey({ config: 'agent.yaml', dnssd: true })).rejects.toThrow(
      "--dnssd: with --config the config's discovery.dnssd decides",
    );
  });
});
