import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { controlAddress, getControl, urlOf } from '../../../src/cli/control-address.js';
import { defaultDataDir } from '../../../src/config/paths.js';
import { freePort } from '../../support/peers.js';

const dir = mkdtempSync(join(tmpdir(), 'control-address-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('control address', () => {
  it.each([
    [{ bind: '127.0.0.1', port: 9631 }, 'http://127.0.0.1:9631'],
    [{ bind: '0.0.0.0', port: 80 }, 'http://127.0.0.1:80'],
    [{ bind: '::', port: 9631 }, 'http://[::1]:9631'],
    [{ bind: '::1', port: 1 }, 'http://[::1]:1'],
    [{ bind: 'agent.local', port: 2 }, 'http://agent.local:2'],
  ])('%j is asked at %s', (control, url) => expect(urlOf(control)).toBe(url));

  it('takes --url first, then the control section of --config', () => {
    expect(controlAddress({ url: 'http://10.0.0.1:7000/' })).toEqual({
      url: 'http://10.0.0.1:7000',
      source: '--url',
    });
    const file = join(dir, 'agent.yaml');
    writeFileSync(file, 'cloud:\n  url: http://x\n  client_id: a\ncontrol:\n  bind: 0.0.0.0\n  port: 7777\n');
    expect(controlAddress({ config: file }, {})).toEqual({
      url: 'http://127.0.0.1:7777',
      source: `control.bind/control.port of ${file}`,
      // the agent that must answer: the file's data_dir, else the default
      dataDir: defaultDataDir(),
    });
    const withDir = join(dir, 'with-dir.yaml');
    writeFileSync(withDir, `data_dir: ${join(dir, 'agent')}\ncloud:\n  url: http://x\n  client_id: a\n`);
    expect(controlAddress({ config: withDir }, {}).dataDir).toBe(join(dir, 'agent'));
    expect(controlAddress({ config: withDir, dataDir: join(dir, 'flag') }, {}).dataDir).toBe(
      join(dir, 'flag'),
    );
  });

  it('says which address it tried, where it came from and how to configure it when nobody answers', async () => {
    const port = await freePort();
    const address = { url: `http://127.0.0.1:${port}`, source: '--url' };
    await expect(getControl(address, '/status')).rejects.toThrow(
      `no agent answers at http://127.0.0.1:${port} (ECONNREFUSED); the address comes from --url. Is the agent running? ` +
        'Point to it with --config /etc/printrelay/agent.yaml (its control.bind and control.port) or --url http://HOST:PORT, ' +
        'and check that control.enabled is not false.',
    );
  });
});
