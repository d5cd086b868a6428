/**
 * `printrelay doctor` against real peers: the emulator behind a TLS terminator with certificates
 * made by openssl (trusted, self-signed, expired, another host's, an unknown CA's), the shared
 * ippeveprinter, a private cupsd with a queue, and a socat pty as a serial card reader. Each
 * finding is checked exactly, and the command is run once as a process for its output and exit code.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CheckResult } from '../../src/cli/doctor/doctor-check.js';
import { runDoctor } from '../../src/cli/commands/doctor.js';
import { fetchPasswordToken } from '../../src/client/oauth-client.js';
import { DEMO, defaultEmulatorSeed } from '../../src/config/load-config.js';
import { createEmulator, type Emulator } from '../../src/emulator/app.js';
import { silentLogger } from '../../src/log/logger.js';
import { addEverywhereQueue, type PrivateCupsd, startCupsd } from '../support/cupsd.js';
import { freePort, peersAvailable } from '../support/peers.js';
import { type KeyPair, privateCa, selfSigned, signedLeaf } from '../support/test-certs.js';
import { runCli } from './cli-process.js';

const enabled =
  peersAvailable('openssl', 'socat', 'cupsd', 'lpadmin', 'ippeveprinter') &&
  inject('ippeveprinterUri') !== '';

describe.skipIf(!enabled)('printrelay doctor', () => {
  let dir: string;
  let emulator: Emulator;
  let emulatorPort: number;
  let cupsd: PrivateCupsd;
  let socat: ChildProcess;
  let ca: KeyPair;
  const proxies: Server[] = [];
  const certs: Record<string, KeyPair> = {};

  /** A TLS terminator in front of the emulator with the given certificate; resolves to its https URL. */
  async function tlsFront(pair: KeyPair): Promise<string> {
    const server = createTlsServer({ key: pair.key, cert: pair.cert }, (socket) => {
      const upstream = connect(emulatorPort, '127.0.0.1');
      socket.pipe(upstream).pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
    });
    proxies.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `https://127.0.0.1:${(server.address() as { port: number }).port}`;
  }

  function writeConfig(name: string, url: string, printers: string, stations: string): string {
    const file = join(dir, `${name}.yaml`);
    const lines = [
      `version: 1`,
      'cloud:',
      `  url: ${url}`,
      `  client_id: ${DEMO.client.id}`,
      `  client_secret: ${DEMO.client.secret}`,
    ];
    writeFileSync(
      file,
      `${lines.join('\n')}\nprinters:${printers ? `\n${printers}` : ' []\n'}release_stations:${stations ? `\n${stations}` : ' []\n'}`,
    );
    return file;
  }

  const station = (reader: string) =>
    `  - name: Desk\n    reader: ${reader}\n    printer: P\n    pull_url: http://127.0.0.1:1\n    password: pw\n`;
  const byName = (results: CheckResult[]) => Object.fromEntries(results.map((r) => [r.name, r]));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'doctor-'));
    const certDir = join(dir, 'certs');
    mkdirSync(certDir);
    ca = privateCa(certDir);
    certs.trusted = signedLeaf(certDir, 'trusted', ['localhost', '127.0.0.1']);
    certs.expired = signedLeaf(certDir, 'expired', ['127.0.0.1'], {
      start: '20200101000000Z',
      end: '20200102000000Z',
    });
    certs.otherHost = signedLeaf(certDir, 'other', ['print.example.com']);
    certs.selfSigned = selfSigned(certDir, 'self', ['127.0.0.1']);
    emulator = await createEmulator({
      db: join(dir, 'emulator.db'),
      dataDir: join(dir, 'emulator'),
      seed: defaultEmulatorSeed(),
      logger: silentLogger(),
    });
    const base = await emulator.listen('127.0.0.1', 0);
    emulatorPort = Number(new URL(base).port);
    cupsd = await startCupsd();
    addEverywhereQueue(cupsd, 'doctor-queue', inject('ippeveprinterUri'));
    socat = spawn(
      'socat',
      [`pty,raw,echo=0,link=${join(dir, 'ttyREADER')}`, `pty,raw,echo=0,link=${join(dir, 'ttyTEST')}`],
      {
        stdio: 'ignore',
      },
    );
    while (!existsSync(join(dir, 'ttyREADER'))) await new Promise((r) => setTimeout(r, 20));
    // tokens the way pairing stores them, obtained from the emulator
    const token = await fetchPasswordToken(
      { authUrl: base, clientId: DEMO.client.id, clientSecret: DEMO.client.secret },
      DEMO.admin.email,
      DEMO.admin.password,
      'printing printing.connectors',
    );
    mkdirSync(join(dir, 'data'), { mode: 0o700 });
    writeFileSync(
      join(dir, 'data', 'tokens.json'),
      JSON.stringify({
        access_token: token.access_token,
        access_expires_at: Date.now() + 3_600_000,
        refresh_token: token.refresh_token,
      }),
      { mode: 0o600 },
    );
  });

  afterAll(async () => {
    socat?.kill('SIGTERM');
    for (const p of proxies) p.close();
    await cupsd?.stop();
    await emulator?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds a healthy machine healthy, naming what each printer supports and the CUPS queues', async () => {
    const url = await tlsFront(certs.trusted!);
    const printers =
      `  - name: Eve\n    uri: ${inject('ippeveprinterUri')}\n` +
      `  - name: Queue\n    uri: cups://doctor-queue?server=${cupsd.server}\n`;
    const file = writeConfig(
      'healthy',
      url,
      printers,
      station(`serial://${join(dir, 'ttyREADER')}?baud=9600`),
    );
    const results = await runDoctor({ config: file, dataDir: join(dir, 'data') }, { ca: [ca.cert] });
    const r = byName(results);
    expect(results.filter((x) => x.status === 'fail' || x.status === 'warn')).toEqual([]);
    expect(r.config).toEqual({ name: 'config', status: 'ok', detail: `${file} is valid` });
    expect(r['data dir']?.detail).toBe(`${join(dir, 'data')} is writable, mode 0700`);
    expect(r.dns?.detail).toBe('127.0.0.1 is an IP address (nothing to resolve)');
    expect(r.tls?.detail).toMatch(
      new RegExp(
        `^${url.slice(8)}: trusted certificate localhost issued by PrintRelay Test Root CA, valid .+ GMT to .+ GMT$`,
      ),
    );
    expect(r.clock?.detail).toMatch(/^this machine is [01] s (ahead of|behind) the cloud$/);
    expect(r.token?.detail).toMatch(/^the cloud accepts the stored access token \(valid until \d{4}-/);
    expect(r.cups?.detail).toBe(`CUPS at ${cupsd.server} answers: 1 queue(s): doctor-queue`);
    expect(r['printer Eve']?.detail).toMatch(
      new RegExp(
        `^${inject('ippeveprinterUri')} answers: idle, Example Printer, formats [a-z/-]*pdf[a-z/-]*, (color|monochrome), (duplex|simplex), \\d+ media sizes$`,
      ),
    );
    expect(r['printer Queue']?.status).toBe('ok');
    expect(r['reader Desk']?.detail).toMatch(
      new RegExp(`^${join(dir, 'ttyREADER')} is present and readable \\(group \\w+, mode 6[0-7]0\\)$`),
    );
    expect(r.agent?.status).toBe('skip');
  });

  it.each([
    [
      'selfSigned',
      false,
      'the certificate is self-signed [DEPTH_ZERO_SELF_SIGNED_CERT]: 127.0.0.1 issued by 127.0.0.1',
    ],
    [
      'expired',
      true,
      'the certificate has expired [CERT_HAS_EXPIRED]: 127.0.0.1 issued by PrintRelay Test Root CA, valid Jan  1 00:00:00 2020 GMT to Jan  2 00:00:00 2020 GMT',
    ],
    [
      'trusted',
      false,
      'the certificate was issued by an unknown CA (no issuer certificate to verify it) [UNABLE_TO_VERIFY_LEAF_SIGNATURE]',
    ],
    ['otherHost', true, 'hostname mismatch: the certificate is for DNS:print.example.com'],
  ])('names the certificate problem of %s (CA trusted: %s)', async (which, trustCa, problem) => {
    const url = await tlsFront(certs[which]!);
    const file = writeConfig(`tls-${which}`, url, '', '');
    const results = await runDoctor(
      { config: file, dataDir: join(dir, 'data') },
      trustCa ? { ca: [ca.cert] } : {},
    );
    const tls = byName(results).tls;
    expect(tls?.status).toBe('fail');
    expect(tls?.detail.startsWith(`${url.slice(8)}: ${problem}`)).toBe(true);
    expect(tls?.fix).toMatch(/\S/);
  });

  it('trusts the CA of cloud.ca_file, as the agent does', async () => {
    const url = await tlsFront(certs.trusted!);
    const caFile = join(dir, 'cloud-ca.pem');
    writeFileSync(caFile, ca.cert);
    const file = writeConfig('ca-file', url, '', '');
    writeFileSync(file, readFileSync(file, 'utf8').replace('cloud:\n', `cloud:\n  ca_file: ${caFile}\n`));
    const tls = byName(await runDoctor({ config: file, dataDir: join(dir, 'data') })).tls;
    expect(tls?.status).toBe('ok');
    expect(
      tls?.detail.startsWith(
        `${url.slice(8)}: trusted certificate localhost issued by PrintRelay Test Root CA`,
      ),
    ).toBe(true);
  });

  it('fails a clock 10 minutes ahead, a refused token, a missing reader, an unreachable printer and a stopped CUPS', async () => {
    const url = await tlsFront(certs.trusted!);
    const deadPort = await freePort();
    const deadCups = await freePort();
    const printers =
      `  - name: Gone\n    uri: ipp://127.0.0.1:${deadPort}/ipp/print\n` +
      `  - name: Queue\n    uri: cups://q?server=127.0.0.1:${deadCups}\n`;
    const file = writeConfig('broken', url, printers, station(`serial://${join(dir, 'ttyMISSING')}`));
    const data = join(dir, 'bad-data');
    mkdirSync(data, { mode: 0o700 });
    writeFileSync(
      join(data, 'tokens.json'),
      JSON.stringify({ access_token: 'forged', access_expires_at: Date.now() + 3_600_000 }),
    );
    const clock = { now: () => Date.now() + 600_000 };
    const r = byName(await runDoctor({ config: file, dataDir: data }, { ca: [ca.cert], clock }));
    expect(r.clock?.status).toBe('fail');
    expect(r.clock?.detail).toMatch(
      /^this machine is 60[01] s ahead of the cloud \(tokens and signed URLs will be refused\)$/,
    );
    expect(r.token).toMatchObject({
      status: 'fail',
      detail: 'the cloud refuses the stored access token (401)',
    });
    expect(r['reader Desk']).toMatchObject({
      status: 'fail',
      detail: `${join(dir, 'ttyMISSING')} is not present`,
    });
    expect(r['printer Gone']?.status).toBe('fail');
    expect(r['printer Gone']?.detail).toMatch(
      new RegExp(`^ipp://127\\.0\\.0\\.1:${deadPort}/ipp/print does not answer \\(.*ECONNREFUSED`),
    );
    expect(r.cups?.status).toBe('fail');
    expect(r.cups?.detail).toMatch(new RegExp(`^CUPS at 127\\.0\\.0\\.1:${deadCups} does not answer`));
  });

  it('the command prints each finding with its fix and exits 1 on a failure', async () => {
    const url = await tlsFront(certs.selfSigned!);
    const file = writeConfig('cli', url, '', '');
    const { code, stdout } = await runCli(['doctor', '--config', file, '--data-dir', join(dir, 'data')]);
    expect(code).toBe(1);
    expect(stdout).toContain(
      `FAIL  tls       ${url.slice(8)}: the certificate is self-signed [DEPTH_ZERO_SELF_SIGNED_CERT]`,
    );
    expect(stdout).toContain(
      '          fix: install a certificate from a trusted CA on the server, or trust this one: NODE_EXTRA_CA_CERTS=',
    );
    expect(stdout).toMatch(/\n1 failed, 0 warnings, \d+ ok, \d+ skipped\n$/);
  });

  it('an invalid file fails the config check with its line and skips the rest', async () => {
    const file = join(dir, 'invalid.yaml');
    writeFileSync(file, 'version: 1\ncloud:\n  url: ftp://x\n  client_id: a\n');
    const results = await runDoctor({ config: file });
    expect(results[0]).toMatchObject({ name: 'config', status: 'fail' });
    expect(results[0]?.detail).toContain(`${file}:3:8: cloud.url: must match pattern "^https?://"`);
    expect(
      results.slice(1).every((x) => x.status === 'skip' && x.detail === 'needs a valid configuration file'),
    ).toBe(true);
  });
});
