/**
 * `printrelay demo --tls` as a user runs it: the real process serves HTTPS with a self-signed
 * certificate created in DIR/tls on the first start and reused on the second (same fingerprint);
 * the demo's own agent trusts it through cloud.ca_file; the banner's commands (printrelay print
 * with --ca, the curl sequence with --cacert) print as pasted; an agent without the CA stops at
 * once with an error naming the URL and the TLS reason.
 */
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { peersAvailable } from '../support/peers.js';
import { CliProcess, runCli } from './cli-process.js';

const checkout = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'printrelay-demo-tls-'));
const dataDir = join(dir, 'demo');
const certFile = join(dataDir, 'tls', 'cert.pem');

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs a shell script in `cwd` as a user pasting it would. */
function bash(script: string, cwd = checkout): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-euo', 'pipefail', '-c', script], { cwd }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The banner line that prints to "Demo Printer" with printrelay print, without its indent. */
function printLine(banner: string): string {
  const line = banner.split('\n').find((l) => /^\s+node bin\/printrelay\.js print .*"Demo Printer"/.test(l));
  if (!line) throw new Error(`no print line in the banner:\n${banner}`);
  return line.trim();
}

/** The curl sequence of the banner, as the lines a user pastes. */
function curlScript(banner: string): string {
  const lines = banner.slice(banner.indexOf('Or as an app would')).split('\n').slice(1);
  return lines
    .slice(
      0,
      lines.findIndex((l) => l.trim() === ''),
    )
    .map((l) => l.replace(/^ {2}/, ''))
    .join('\n');
}

/** Starts the demo with --tls; resolves with the process, its URL and fingerprint. */
async function startTlsDemo(
  extra: string[] = [],
): Promise<{ demo: CliProcess; url: string; fingerprint: string }> {
  const demo = new CliProcess(['demo', '--tls', '--port', '0', '--data-dir', dataDir, ...extra]);
  await demo.waitFor(/^ready\b/m);
  const url = (await demo.waitFor(/Cloud emulator\s+(\S+)/))[1] as string;
  const fingerprint = (await demo.waitFor(/^ {2}SHA-256 {12}(\S+)$/m))[1] as string;
  return { demo, url, fingerprint };
}

describe('printrelay demo --tls', () => {
  it('serves HTTPS with a certificate it keeps, prints through its own agent, and its banner commands work verbatim', async () => {
    const first = await startTlsDemo(['--log-level', 'info']);
    let firstFingerprint: string;
    try {
      expect(first.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const cert = readFileSync(certFile, 'utf8');
      firstFingerprint = new X509Certificate(cert).fingerprint256;
      expect(first.fingerprint).toBe(firstFingerprint);
      expect(first.demo.stdout).toContain(
        `  TLS certificate    ${certFile}   (self-signed, created now; clients trust this file)\n`,
      );
      expect(statSync(join(dataDir, 'tls')).mode & 0o777).toBe(0o700);
      expect(statSync(join(dataDir, 'tls', 'key.pem')).mode & 0o777).toBe(0o600);
      expect(statSync(certFile).mode & 0o777).toBe(0o600);
      // the demo's agent trusts the certificate through its configuration, not by a switch
      const agentYaml = readFileSync(join(dataDir, 'agent.yaml'), 'utf8');
      expect(agentYaml).toContain(`ca_file: ${certFile}\n`);
      expect(agentYaml).not.toMatch(/reject|insecure|verify/i);
      // the channel WebSocket (wss://) trusts it too: it connects, and nothing was untrusted
      const logs = first.demo.stdout + first.demo.stderr;
      expect(logs).toContain('"msg":"channel connected"');
      expect(logs).not.toContain('not trusted');

      const line = printLine(first.demo.stdout);
      expect(line).toBe(
        `node bin/printrelay.js print docs/sample.pdf --printer "Demo Printer" --url ${first.url} --ca ${certFile}`,
      );
      const printed = await bash(line);
      expect(printed.stderr).toContain('status 0 PRINTED|COMPLETE| pages 2/2');
      expect(printed).toMatchObject({ code: 0 });
      expect(printed.stdout).toMatch(/^printed: job \S+, 2 page\(s\)\n$/);

      // pull printing over HTTPS: hold the sample in the queue, then the banner's swipe releases
      // it through the station's /TPFM/ client, which trusts the certificate the same way
      const pull = first.demo.stdout.split('\n').map((l) => l.trim());
      const hold = pull.find((l) => l.includes('--printer "Pull Printing"')) as string;
      expect(hold).toBe(
        `node bin/printrelay.js print docs/sample.pdf --printer "Pull Printing" --url ${first.url} --ca ${certFile} --timeout 3`,
      );
      const held = await bash(hold);
      expect(held.code).toBe(1);
      expect(held.stderr).toMatch(/did not finish within 3 s \(last status 1246\)\n$/);
      const heldId = /job (\S+) did not finish/.exec(held.stderr)?.[1];
      const swipe = pull.find((l) => l.startsWith('node bin/printrelay.js swipe ')) as string;
      const swiped = await bash(swipe);
      expect(swiped.stdout).toBe(`released "sample.pdf" (job ${heldId}): 2 page(s)\n`);
      expect(swiped.code).toBe(0);

      if (peersAvailable('curl')) {
        const work = mkdtempSync(join(dir, 'curl-'));
        const curl = await bash(curlScript(first.demo.stdout), work);
        expect(curl.code).toBe(0);
        expect(curl.stdout).toMatch(/"jobstatus":\s*(0|129|1246)\b/);
      }
    } finally {
      expect(await first.demo.stop()).toBe(0);
    }

    const second = await startTlsDemo();
    try {
      expect(second.fingerprint).toBe(firstFingerprint);
      expect(second.demo.stdout).toContain(
        `  TLS certificate    ${certFile}   (self-signed, reused; clients trust this file)\n`,
      );
      const printed = await bash(printLine(second.demo.stdout));
      expect(printed.stderr).toContain('status 0 PRINTED|COMPLETE| pages 2/2');
      expect(printed).toMatchObject({ code: 0 });

      // printrelay print without --ca: refused with the URL and the reason
      const refused = await runCli([
        'print',
        join(checkout, 'docs', 'sample.pdf'),
        '--printer',
        'Demo Printer',
        '--url',
        second.url,
      ]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        `error: sign-in at ${second.url} as alice@demo.test (client demo-app) failed: POST ${second.url}/oauth/access_token/: the server's TLS certificate is not trusted (DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate); trust the CA that signed it with cloud.ca_file in agent.yaml (printrelay print: --ca FILE)\n`,
      );

      // an agent without cloud.ca_file stops at once (no retry loop) and says why
      const configFile = join(dir, 'no-ca.yaml');
      writeFileSync(
        configFile,
        stringify({
          version: 1,
          cloud: {
            url: second.url,
            client_id: 'demo-app',
            client_secret: 'demo-secret',
            username: 'admin@demo.test',
            password: 'demo-admin',
          },
          control: { port: 0 },
        }),
      );
      const agent = await runCli(['agent', '--config', configFile, '--data-dir', join(dir, 'no-ca-agent')]);
      expect(agent.code).toBe(1);
      expect(agent.stderr).toBe(
        `error: POST ${second.url}/oauth/access_token/: the server's TLS certificate is not trusted (DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate); trust the CA that signed it with cloud.ca_file in agent.yaml (printrelay print: --ca FILE)\n`,
      );
      expect(agent.stdout).not.toContain('retrying');
    } finally {
      expect(await second.demo.stop()).toBe(0);
    }
  }, 180_000);
});
