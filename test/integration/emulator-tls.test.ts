/**
 * `printrelay emulator --tls` as a user runs it: the self-signed certificate is created in the
 * data directory (0700 directory, 0600 key) with its fingerprint printed, reused on the second
 * run, and the upload URLs it hands out are https:// on the host the client used, never a Host
 * header naming another host.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO } from '../../src/config/demo-seed.js';
import { CliProcess } from './cli-process.js';

const dir = mkdtempSync(join(tmpdir(), 'emulator-tls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function startTls(): Promise<{ cli: CliProcess; url: string }> {
  const cli = new CliProcess([
    'emulator',
    '--listen',
    '127.0.0.1:0',
    '--tls',
    '--data-dir',
    dir,
    '--log-level',
    'warn',
  ]);
  const url = (await cli.waitFor(/^listening on (https:\/\/127\.0\.0\.1:\d+)$/m))[1] as string;
  return { cli, url };
}

async function prepareUpload(url: string, ca: string, host: string): Promise<string> {
  // the forged Host header is what is tested here, not the name check of the certificate
  const dispatcher = new Agent({ connect: { ca, checkServerIdentity: () => undefined } });
  try {
    const basic = Buffer.from(`${DEMO.client.id}:${DEMO.client.secret}`).toString('base64');
    const form = new URLSearchParams({
      grant_type: 'password',
      scope: 'printing',
      username: DEMO.user.email,
      password: DEMO.user.password,
    });
    const token = await request(`${url}/oauth/access_token/`, {
      method: 'POST',
      dispatcher,
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    const { access_token } = (await token.body.json()) as { access_token: string };
    const upload = await request(`${url}/sfapi/PrepareUpload/`, {
      dispatcher,
      headers: { authorization: `Bearer ${access_token}`, host },
    });
    return ((await upload.body.json()) as { sasUri: string }).sasUri;
  } finally {
    await dispatcher.close();
  }
}

describe('printrelay emulator --tls', () => {
  it('creates the certificate once (0700/0600), prints its fingerprint, and hands out https URLs of the listener', async () => {
    const { cli, url } = await startTls();
    try {
      const cert = readFileSync(join(dir, 'tls', 'cert.pem'), 'utf8');
      const fingerprint = new X509Certificate(cert).fingerprint256;
      expect(cli.stdout).toContain(
        `tls: created certificate ${join(dir, 'tls', 'cert.pem')} (SHA-256 fingerprint ${fingerprint})\n`,
      );
      expect(statSync(join(dir, 'tls')).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, 'tls', 'key.pem')).mode & 0o777).toBe(0o600);
      const port = new URL(url).port;
      expect(await prepareUpload(url, cert, `localhost:${port}`)).toMatch(
        new RegExp(`^https://localhost:${port}/storage/uploads/`),
      );
      expect(await prepareUpload(url, cert, `evil.example:${port}`)).toMatch(
        new RegExp(`^${url.replace(/\./g, '\\.')}/storage/uploads/`),
      );
    } finally {
      expect(await cli.stop()).toBe(0);
    }
    const again = await startTls();
    try {
      const cert = readFileSync(join(dir, 'tls', 'cert.pem'), 'utf8');
      expect(again.cli.stdout).toContain(
        `tls: using certificate ${join(dir, 'tls', 'cert.pem')} (SHA-256 fingerprint ${new X509Certificate(cert).fingerprint256})\n`,
      );
    } finally {
      expect(await again.cli.stop()).toBe(0);
    }
  }, 60_000);
});
