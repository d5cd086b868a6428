/**
 * `printrelay emulator --webhook-ca FILE --webhook-timeout-ms N` as a process: a bad CA file or
 * deadline is refused naming the flag, and the webhook commands of docs/emulator.md, run
 * verbatim with curl, reach an HTTPS receiver whose certificate chains to the given CA.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answer,
  makeTestCertificates,
  startHttpsReceiver,
  type TestCertificates,
} from '../support/https-receiver.js';
import { peersAvailable } from '../support/peers.js';
import { CliProcess } from './cli-process.js';

const run = promisify(execFile);
const havePeers = peersAvailable('openssl', 'curl');

/** The shell block of docs/emulator.md between the webhook markers. */
async function docsWebhookCommands(): Promise<string> {
  const doc = await readFile(join(import.meta.dirname, '..', '..', 'docs', 'emulator.md'), 'utf8');
  const match = /<!-- webhook-commands -->\s*```sh\n([\s\S]*?)```/.exec(doc);
  if (!match) throw new Error('docs/emulator.md has no webhook-commands block');
  return match[1]!;
}

describe.runIf(havePeers)('printrelay emulator webhook flags', { timeout: 90_000 }, () => {
  let dir: string;
  let certs: TestCertificates;
  const started: CliProcess[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cli-webhooks-'));
    certs = await makeTestCertificates();
    await writeFile(join(dir, 'ca.pem'), certs.caPem);
  });
  afterAll(async () => {
    for (const p of started) await p.stop();
    await certs?.remove();
    await rm(dir, { recursive: true, force: true });
  });

  const emulator = (...extra: string[]) => {
    const p = new CliProcess([
      'emulator',
      '--listen',
      '127.0.0.1:0',
      '--db',
      ':memory:',
      '--data-dir',
      join(dir, 'data'),
      ...extra,
    ]);
    started.push(p);
    return p;
  };

  it.each([
    [['--webhook-ca', '/nonexistent/ca.pem'], '--webhook-ca: cannot read /nonexistent/ca.pem (ENOENT)'],
    [['--webhook-ca', 'README.md'], '--webhook-ca: README.md holds no PEM certificate'],
    [
      ['--webhook-timeout-ms', '5'],
      '--webhook-timeout-ms: expected a whole number from 100 to 300000, got "5"',
    ],
    [
      ['--allow-outbound', '10.0.0.0/33'],
      '--allow-outbound: "10.0.0.0/33" is not an address range: give a CIDR such as 192.168.10.0/24 or fd00::/8, or one address',
    ],
    [
      ['--cors-origin', 'https://app.example.com/callback'],
      '--cors-origin: "https://app.example.com/callback" is not an origin: give scheme, host and port only, e.g. https://app.example.com',
    ],
    [
      ['--registration-sheet-interval-s', '-1'],
      '--registration-sheet-interval-s: expected a whole number from 0 to 604800, got "-1"',
    ],
  ])('refuses %j naming the flag', async (flags, message) => {
    const p = emulator(...flags);
    expect(await p.exited).not.toBe(0);
    expect(p.stderr).toContain(message);
  });

  it('runs the documented webhook commands against a receiver of the configured CA', async () => {
    const receiver = await startHttpsReceiver(certs, answer(200));
    try {
      const p = emulator(
        '--webhook-ca',
        join(dir, 'ca.pem'),
        '--webhook-timeout-ms',
        '5000',
        '--allow-outbound',
        '127.0.0.1',
      );
      const url = (await p.waitFor(/^listening on (http:\/\/\S+)$/m))[1]!.replace(/\/$/, '');
      const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', await docsWebhookCommands()], {
        env: { ...process.env, E: url, HOOK: receiver.url },
      });
      expect(receiver.requests.length).toBeGreaterThanOrEqual(1);
      expect(receiver.requests[0]!.headers['user-agent']).toBe('PrintRelay-Webhooks/2.0');
      expect(stdout).toContain('"status":"succeeded"');
    } finally {
      await receiver.close();
    }
  });
});
