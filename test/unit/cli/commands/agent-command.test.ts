import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentDataDir, registerAgentSecrets } from '../../../../src/cli/agent-settings.js';
import { registerSeedSecrets } from '../../../../src/cli/commands/emulator.js';
import { defaultEmulatorSeed, parseAgentConfig } from '../../../../src/config/load-config.js';
import { defaultDataDir } from '../../../../src/config/paths.js';
import { Redactor } from '../../../../src/log/redaction.js';

const base =
  'cloud:\n  url: http://127.0.0.1:8080\n  client_id: demo-app\n  client_secret: s3cret-value\n  password: pa55word\n';

describe('agent command helpers', () => {
  it('picks the data directory: flag, then file, then platform default', () => {
    const withDir = parseAgentConfig(`${base}data_dir: /srv/pr\n`, 'a.yaml', { env: {} });
    const without = parseAgentConfig(base, 'a.yaml', { env: {} });
    expect(agentDataDir('/flag/dir', withDir)).toBe('/flag/dir');
    expect(agentDataDir(undefined, withDir)).toBe('/srv/pr');
    expect(agentDataDir(undefined, without)).toBe(resolve(defaultDataDir()));
  });

  it('registers the configured secrets with the redactor', () => {
    const redactor = new Redactor();
    registerAgentSecrets(parseAgentConfig(base, 'a.yaml', { env: {} }), redactor);
    expect(redactor.scrubString('secret s3cret-value and pa55word')).toBe('secret [redacted] and [redacted]');
  });

  it('registers every password and client secret of a seed', () => {
    const redactor = new Redactor();
    registerSeedSecrets(defaultEmulatorSeed(), redactor);
    expect(redactor.scrubString('demo-admin demo-alice demo-secret demo-device other-admin')).toBe(
      '[redacted] [redacted] [redacted] [redacted] [redacted]',
    );
  });
});
