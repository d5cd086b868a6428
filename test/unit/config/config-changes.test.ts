import { describe, expect, it } from 'vitest';
import { configChanges, describeChanges } from '../../../src/config/config-changes.js';
import { parseAgentConfig } from '../../../src/config/load-config.js';

const head = 'cloud:\n  url: http://127.0.0.1:8080\n  client_id: demo-app\n';
const station = (name: string, mode = 'all') =>
  `  - name: ${name}\n    reader: socket://127.0.0.1:4711\n    printer: P\n    pull_url: http://127.0.0.1:8080\n    password: pw\n    mode: ${mode}\n`;
const parse = (text: string) => parseAgentConfig(text, 'agent.yaml', { env: {} });

describe('configChanges', () => {
  const before = parse(
    `${head}printers:\n  - name: A\n    uri: ipp://a/ipp/print\n  - name: B\n    uri: ipp://b/ipp/print\nrelease_stations:\n${station('Desk')}${station('Door')}`,
  );

  it('lists printers and readers added, removed and changed, and the log level', () => {
    const after = parse(
      `${head}log:\n  level: debug\nprinters:\n  - name: A\n    uri: ipp://a2/ipp/print\n  - name: C\n    uri: ipp://c/ipp/print\nrelease_stations:\n${station('Desk', 'choose')}${station('Lobby')}`,
    );
    const changes = configChanges(before, after);
    expect(changes).toEqual({
      printers: { added: ['C'], removed: ['B'], changed: ['A'] },
      readers: { added: ['Lobby'], removed: ['Door'], changed: ['Desk'] },
      logLevel: { from: 'info', to: 'debug' },
      needRestart: [],
    });
    expect(describeChanges(changes)).toBe(
      'printers added: C; printers removed: B; printers changed: A; readers added: Lobby; readers removed: Door; readers changed: Desk; log level info -> debug',
    );
  });

  it('names sections that only a restart applies', () => {
    const after = parse(
      `${head.replace('8080', '9090')}jobs:\n  retry_initial_ms: 50\nlog:\n  pretty: true\nprinters:\n  - name: A\n    uri: ipp://a/ipp/print\n  - name: B\n    uri: ipp://b/ipp/print\nrelease_stations:\n${station('Desk')}${station('Door')}`,
    );
    const changes = configChanges(before, after);
    expect(changes.needRestart).toEqual(['cloud', 'jobs', 'log.pretty']);
    expect(describeChanges(changes)).toBe('not applied until a restart: cloud, jobs, log.pretty');
  });

  it('says nothing changed for the same file', () => {
    expect(describeChanges(configChanges(before, structuredClone(before)))).toBe('nothing changed');
  });
});
