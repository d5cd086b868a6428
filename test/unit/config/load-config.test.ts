import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkConfig } from '../../../src/config/check-config.js';
import { loadEmulatorSeed, parseEmulatorSeed } from '../../../src/config/emulator-seed-config.js';
import {
  ConfigError,
  defaultEmulatorSeed,
  guessConfigKind,
  loadAgentConfig,
  parseAgentConfig,
} from '../../../src/config/load-config.js';

const minimal = 'cloud:\n  url: http://127.0.0.1:8080\n  client_id: demo-app\n';

/** The formatted issue lines of a failing parse. */
function agentErrors(text: string, env: Record<string, string> = {}): string[] {
  try {
    parseAgentConfig(text, 'agent.yaml', { env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message.split('\n');
  }
  throw new Error('expected a ConfigError');
}

describe('parseAgentConfig: rules with file:line:col', () => {
  it.each([
    ['const', 'version: 2\n' + minimal, 'agent.yaml:1:10: version: must be 1'],
    [
      'format',
      'cloud:\n  url: "http://a b"\n  client_id: x\n',
      'agent.yaml:2:8: cloud.url: must be a valid uri',
    ],
    [
      'pattern',
      'cloud:\n  url: ftp://x/\n  client_id: x\n',
      'agent.yaml:2:8: cloud.url: must match pattern "^https?://"',
    ],
    [
      'minLength',
      'cloud:\n  url: http://x/\n  client_id: ""\n',
      'agent.yaml:3:14: cloud.client_id: must NOT have fewer than 1 characters',
    ],
    [
      'type',
      `${minimal}printers:\n  - name: P\n    uri: ipp://h/\n    enabled: "yes"\n`,
      'agent.yaml:7:14: printers[0].enabled: must be boolean',
    ],
    ['minimum', `${minimal}  poll_interval_s: 0\n`, 'agent.yaml:4:20: cloud.poll_interval_s: must be >= 1'],
    [
      'maximum',
      `${minimal}jobs:\n  status_poll_ms: 99999\n`,
      'agent.yaml:5:19: jobs.status_poll_ms: must be <= 60000',
    ],
    [
      'maximum of the final event linger',
      `${minimal}jobs:\n  final_event_linger_ms: 1001\n`,
      'agent.yaml:5:26: jobs.final_event_linger_ms: must be <= 1000',
    ],
    [
      'minimum of the event linger',
      `${minimal}jobs:\n  event_linger_ms: -1\n`,
      'agent.yaml:5:20: jobs.event_linger_ms: must be >= 0',
    ],
    [
      'integer',
      `${minimal}  request_timeout_s: 1.5\n`,
      'agent.yaml:4:22: cloud.request_timeout_s: must be integer',
    ],
    [
      'union of literals',
      `${minimal}  channel: pigeon\n`,
      'agent.yaml:4:12: cloud.channel: must be one of: "websocket", "poll"',
    ],
    ['unknown key', `${minimal}  colour: blue\n`, 'agent.yaml:4:3: cloud.colour: unknown key'],
    ['unknown top-level key', `${minimal}extra: 1\n`, 'agent.yaml:4:1: extra: unknown key'],
    [
      'missing field points at the parent key',
      'cloud:\n  url: http://x/\n',
      'agent.yaml:1:1: cloud.client_id: is required',
    ],
    ['missing section at the root', 'log:\n  level: info\n', 'agent.yaml:1:1: cloud: is required'],
    [
      'missing field in a list item',
      `${minimal}printers:\n  - uri: ipp://h/\n`,
      'agent.yaml:5:5: printers[0].name: is required',
    ],
    ['not an object', '- a\n- b\n', 'agent.yaml:1:1: (root): must be object'],
  ])('%s', (_rule, text, expected) => {
    expect(agentErrors(text)).toContain(expected);
  });

  it('reports YAML syntax errors at their real line and column', () => {
    expect(agentErrors('version: 1\ncloud:\n  url: a: b\n')).toEqual([
      'agent.yaml:3:8: (yaml): Nested mappings are not allowed in compact mappings',
    ]);
    expect(agentErrors('version: 1\ncloud:\n  url: "x\n')).toEqual([
      'agent.yaml:4:1: (yaml): Missing closing "quote',
    ]);
  });

  it('reports duplicate keys', () => {
    expect(agentErrors(`${minimal}  url: http://y/\n`)).toEqual([
      'agent.yaml:4:3: cloud.url: duplicate key (first set on line 2)',
    ]);
  });

  it('reports several errors at once, in source order', () => {
    const text = 'version: 3\ncloud:\n  url: nope\n  client_id: ""\n  bogus: 1\nlog:\n  level: loud\n';
    const lines = agentErrors(text);
    expect(lines).toEqual([
      'agent.yaml:1:10: version: must be 1',
      'agent.yaml:3:8: cloud.url: must match pattern "^https?://"',
      'agent.yaml:3:8: cloud.url: must be a valid uri',
      'agent.yaml:4:14: cloud.client_id: must NOT have fewer than 1 characters',
      'agent.yaml:5:3: cloud.bogus: unknown key',
      'agent.yaml:7:10: log.level: must be one of: "trace", "debug", "info", "warn", "error", "fatal", "silent"',
    ]);
  });

  it('keeps the issues in a typed list', () => {
    try {
      parseAgentConfig('cloud: {}\n', 'a.yaml', { env: {} });
    } catch (error) {
      expect((error as ConfigError).issues).toEqual([
        { file: 'a.yaml', line: 1, col: 1, field: 'cloud.client_id', rule: 'is required' },
        { file: 'a.yaml', line: 1, col: 1, field: 'cloud.url', rule: 'is required' },
      ]);
      expect((error as ConfigError).code).toBe('invalid_config');
    }
    expect.assertions(2);
  });
});

describe('parseAgentConfig: defaults', () => {
  it('fills every default of a minimal file', () => {
    const config = parseAgentConfig(minimal, 'agent.yaml', { env: {} });
    expect(config).toEqual({
      version: 1,
      cloud: {
        url: 'http://127.0.0.1:8080',
        client_id: 'demo-app',
        client_secret: '',
        channel: 'websocket',
        poll_interval_s: 25,
        request_timeout_s: 30,
      },
      connector: { type: 'Printserver', description: '' },
      log: { level: 'info' },
      control: { enabled: true, bind: '127.0.0.1', port: 9631 },
      jobs: {
        retry_initial_ms: 1000,
        retry_max_ms: 60_000,
        give_up_after_s: 86_400,
        download_attempts: 10,
        status_poll_ms: 500,
      },
      printers: [],
      discovery: { cups: false, winspool: false, dnssd: false, interval_s: 300, allow: [], deny: [] },
      sync: { interval_s: 60, grace_period_h: 24, max_delete_share: 0.25 },
      release_stations: [],
    });
  });

  it('fills defaults inside list items', () => {
    const config = parseAgentConfig(`${minimal}printers:\n  - name: P\n    uri: virtual://p\n`, 'a.yaml', {
      env: {},
    });
    expect(config.printers).toEqual([{ name: 'P', uri: 'virtual://p', enabled: true }]);
  });
});

describe('parseAgentConfig: environment overrides', () => {
  it('overrides values with PRINTRELAY_<SECTION>__<KEY>, converting to the schema type', () => {
    const config = parseAgentConfig(minimal, 'agent.yaml', {
      env: {
        PRINTRELAY_CLOUD__URL: 'https://print.example.com',
        PRINTRELAY_CLOUD__POLL_INTERVAL_S: '7',
        PRINTRELAY_LOG__LEVEL: 'debug',
        PRINTRELAY_LOG__PRETTY: 'false',
        PRINTRELAY_DATA_DIR: '/srv/printrelay',
        PRINTRELAY_PRINTERS__0__NAME: 'Env Printer',
        PRINTRELAY_PRINTERS__0__URI: 'ipp://10.0.0.5/ipp/print',
        PRINTRELAY_LOG_LEVEL: 'trace',
        OTHER_VARIABLE: 'ignored',
      },
    });
    expect(config.cloud.url).toBe('https://print.example.com');
    expect(config.cloud.poll_interval_s).toBe(7);
    expect(config.log).toEqual({ level: 'debug', pretty: false });
    expect(config.data_dir).toBe('/srv/printrelay');
    expect(config.printers).toEqual([
      { name: 'Env Printer', uri: 'ipp://10.0.0.5/ipp/print', enabled: true },
    ]);
  });

  it('keeps a numeric-looking value a string where the schema wants a string', () => {
    const config = parseAgentConfig(minimal, 'agent.yaml', {
      env: { PRINTRELAY_CLOUD__CLIENT_SECRET: '12345' },
    });
    expect(config.cloud.client_secret).toBe('12345');
  });

  it('validates overrides like the file and names the variable', () => {
    expect(
      agentErrors(minimal, {
        PRINTRELAY_JOBS__RETRY_MAX_MS: '5',
        PRINTRELAY_CLOUD__CHANNEL: 'pigeon',
        PRINTRELAY_NOPE__X: '1',
      }),
    ).toEqual([
      'env PRINTRELAY_CLOUD__CHANNEL: cloud.channel: must be one of: "websocket", "poll"',
      'env PRINTRELAY_JOBS__RETRY_MAX_MS: jobs.retry_max_ms: must be >= 100',
      'env PRINTRELAY_NOPE__X: nope: unknown key',
    ]);
  });

  it('reports file and environment errors together', () => {
    expect(agentErrors(`${minimal}  channel: pigeon\n`, { PRINTRELAY_LOG__LEVEL: 'loud' })).toEqual([
      'agent.yaml:4:12: cloud.channel: must be one of: "websocket", "poll"',
      'env PRINTRELAY_LOG__LEVEL: log.level: must be one of: "trace", "debug", "info", "warn", "error", "fatal", "silent"',
    ]);
  });
});

describe('secret references', () => {
  const dir = mkdtempSync(join(tmpdir(), 'printrelay-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('resolves env and file references', () => {
    const secretFile = join(dir, 'secret');
    writeFileSync(secretFile, 'from-file\n');
    const text = `${minimal}  client_secret: \${file:${secretFile}}\n  password: "pre-\${env:AGENT_PW}"\n`;
    const config = parseAgentConfig(text, 'agent.yaml', { env: { AGENT_PW: 's3cret' } });
    expect(config.cloud.client_secret).toBe('from-file');
    expect(config.cloud.password).toBe('pre-s3cret');
  });

  it('names the field of a missing reference', () => {
    const missing = join(dir, 'absent');
    const text = `${minimal}  client_secret: \${file:${missing}}\n  password: \${env:NOT_SET}\n`;
    expect(agentErrors(text)).toEqual([
      `agent.yaml:4:18: cloud.client_secret: secret file ${missing} (referenced as \${file:${missing}}) cannot be read: ENOENT`,
      `agent.yaml:5:13: cloud.password: environment variable NOT_SET (referenced as \${env:NOT_SET}) is not set`,
    ]);
  });

  it('works in the emulator seed too', () => {
    const text = `organizations:\n  - name: O\n    users:\n      - email: a@b.test\n        password: \${env:PW}\n`;
    const seed = parseEmulatorSeed(text, 'seed.yaml', { env: { PW: 'long-password' } });
    expect(seed.organizations[0]?.users[0]?.password).toBe('long-password');
  });
});

describe('emulator seed', () => {
  it('the example file is the demo seed', () => {
    const seed = loadEmulatorSeed('config/emulator.example.yaml', { env: {} });
    expect(seed).toEqual(defaultEmulatorSeed());
  });

  it('the demo seed has the documented credentials', () => {
    const [demo, other] = defaultEmulatorSeed().organizations;
    expect(demo?.name).toBe('Demo Org');
    expect(demo?.users.map((u) => [u.email, u.password])).toEqual([
      ['admin@demo.test', 'demo-admin'],
      ['alice@demo.test', 'demo-alice'],
    ]);
    expect(demo?.users[1]?.cards).toEqual(['04A1B2C3D4']);
    expect(demo?.users[1]?.pull_printing_enabled).toBe(true);
    expect(demo?.oauth_clients[0]).toMatchObject({
      client_id: 'demo-app',
      client_secret: 'demo-secret',
      protected: true,
    });
    expect(demo?.printers).toEqual([{ name: 'Demo Printer', pull_printing_password: 'demo-device' }]);
    expect(other?.name).toBe('Other Org');
    expect(other?.users[0]).toMatchObject({ email: 'admin@other.test', password: 'other-admin' });
  });

  it('applies seed defaults and reports seed rules', () => {
    const seed = parseEmulatorSeed('organizations:\n  - name: O\n', 's.yaml', { env: {} });
    expect(seed).toEqual({
      version: 1,
      organizations: [{ name: 'O', users: [], oauth_clients: [], printers: [], partner: false, manages: [] }],
    });
    const issues = checkConfig(
      'emulator',
      'organizations:\n  - name: O\n    users:\n      - email: nope\n        password: x\n',
      's.yaml',
    );
    expect(issues.map((i) => `${i.line}:${i.col} ${i.field}: ${i.rule}`)).toEqual([
      '4:16 organizations[0].users[0].email: must be a valid email',
      '5:19 organizations[0].users[0].password: must NOT have fewer than 4 characters',
    ]);
  });

  it('does not apply PRINTRELAY_ overrides to a seed', () => {
    const seed = parseEmulatorSeed('organizations:\n  - name: O\n', 's.yaml', {
      env: { PRINTRELAY_CLOUD__URL: 'x' },
    });
    expect(seed).not.toHaveProperty('cloud');
  });
});

describe('files and kinds', () => {
  it('the agent example validates', () => {
    const config = loadAgentConfig('config/agent.example.yaml', { env: {} });
    expect(config.printers[0]?.name).toBe('Demo Printer');
  });

  it('an unreadable file is a ConfigError naming it', () => {
    expect(() => loadAgentConfig('/nonexistent/agent.yaml')).toThrow(
      '/nonexistent/agent.yaml: (file): cannot be read (ENOENT)',
    );
  });

  it('guesses the kind from the content', () => {
    expect(guessConfigKind(readFileSync('config/agent.example.yaml', 'utf8'))).toBe('agent');
    expect(guessConfigKind(readFileSync('config/emulator.example.yaml', 'utf8'))).toBe('emulator');
    expect(guessConfigKind('foo: 1\n')).toBeUndefined();
    expect(guessConfigKind('[broken\n')).toBeUndefined();
  });
});
