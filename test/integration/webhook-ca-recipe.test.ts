/**
 * The private-CA recipe of docs/emulator.md, run as written: its openssl block makes a CA and a
 * receiver certificate, its node block serves HTTPS (on a free port instead of 8443), and an
 * emulator given that CA the way `--webhook-ca` reads it (the flag parser of `printrelay
 * emulator` and `printrelay demo`) passes the endpoint test; without the CA the test's `detail`
 * says to use --webhook-ca; `printrelay demo` takes both webhook flags. Under CI=true a missing openssl fails the run.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookOptions } from '../../src/cli/commands/emulator.js';
import { freePort, peersAvailable } from '../support/peers.js';
import { runCli } from './cli-process.js';
import { call, type Harness, passwordToken, startHarness } from './emulator-harness.js';

const run = promisify(execFile);
const havePeers = peersAvailable('openssl');

/** The shell block after `marker` in docs/emulator.md. */
async function docsBlock(marker: string): Promise<string> {
  const doc = await readFile(join(import.meta.dirname, '..', '..', 'docs', 'emulator.md'), 'utf8');
  const match = new RegExp(`<!-- ${marker} -->\\s*\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(doc);
  if (!match) throw new Error(`docs/emulator.md has no ${marker} block`);
  return match[1]!;
}

describe.runIf(havePeers)('the private-CA webhook recipe of docs/emulator.md', { timeout: 60_000 }, () => {
  let dir: string;
  let receiver: ChildProcess | undefined;
  let received = '';
  let hook: string;
  const harnesses: Harness[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'webhook-recipe-'));
    await run('bash', ['-euc', await docsBlock('webhook-ca-recipe')], { cwd: dir });
    const port = await freePort();
    const serve = (await docsBlock('webhook-receiver')).replaceAll('8443', String(port));
    receiver = spawn('bash', ['-c', serve], { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      receiver!.stdout!.on('data', (chunk: Buffer) => {
        received += chunk.toString();
        if (received.includes('receiver on')) resolve();
      });
      receiver!.on('exit', (code) => reject(new Error(`the receiver exited with ${code}`)));
    });
    hook = `https://localhost:${port}/`;
  });
  afterAll(async () => {
    receiver?.kill();
    for (const h of harnesses) await h.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function endpointTest(webhookCa?: string) {
    const h = await startHarness({ webhooks: webhookOptions(webhookCa ? { webhookCa } : {}) });
    harnesses.push(h);
    const token = await passwordToken(h.baseUrl, 'webhooks');
    return call(h.baseUrl, 'PUT', '/webhooks/endpoints/test', token, {
      url: hook,
      topic: 'printjob_succeeded',
    });
  }

  it('passes the endpoint test with --webhook-ca naming the recipe’s CA; the receiver got the event', async () => {
    const res = await endpointTest(join(dir, 'receiver-ca.pem'));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('succeeded');
    expect(res.body.response.start_line).toBe('HTTP/1.1 204 No Content');
    await expect.poll(() => received).toContain('"topic":"printjob_succeeded"');
  });

  it('printrelay demo takes --webhook-ca and --webhook-timeout-ms as printrelay emulator does, naming the flag on a bad value', async () => {
    const demo = (...flags: string[]) =>
      runCli(['demo', '--port', '0', '--data-dir', join(dir, 'demo'), ...flags]);
    const unreadable = await demo('--webhook-ca', '/nonexistent/ca.pem');
    expect(unreadable.code).not.toBe(0);
    expect(unreadable.stderr).toContain('--webhook-ca: cannot read /nonexistent/ca.pem (ENOENT)');
    const tooShort = await demo('--webhook-ca', join(dir, 'receiver-ca.pem'), '--webhook-timeout-ms', '5');
    expect(tooShort.code).not.toBe(0);
    expect(tooShort.stderr).toContain(
      '--webhook-timeout-ms: expected a whole number from 100 to 300000, got "5"',
    );
  });

  it('without the CA, the endpoint test says what to do', async () => {
    const res = await endpointTest();
    expect(res.body.status).toBe('failed');
    expect(res.body.detail).toMatch(
      /not issued by a CA the emulator trusts: start the emulator or the demo with --webhook-ca/,
    );
  });
});
