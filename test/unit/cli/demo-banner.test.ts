import { describe, expect, it } from 'vitest';
import { curlSequence, demoBanner, READY_LINE } from '../../../src/cli/demo-banner.js';
import { LineReporter } from '../../../src/cli/print-progress.js';

const info = {
  url: 'http://127.0.0.1:8080',
  printerUri: 'ipp://127.0.0.1:4321/ipp/print',
  printerId: '0b0e7f5e-1111-4222-8333-444455556666',
  printedDir: '/tmp/demo/printed',
  dataDir: '/tmp/demo',
};

describe('demoBanner', () => {
  const banner = demoBanner(info);

  it('under --tls shows the certificate, and its commands trust it (--ca, --cacert)', () => {
    const tls = { certFile: '/tmp/my demo/tls/cert.pem', fingerprint: 'AB:CD', created: false };
    const https = demoBanner({ ...info, url: 'https://127.0.0.1:8443', tls });
    expect(https).toContain(
      '  TLS certificate    /tmp/my demo/tls/cert.pem   (self-signed, reused; clients trust this file)\n  SHA-256            AB:CD\n',
    );
    expect(https).toContain(
      `  node bin/printrelay.js print docs/sample.pdf --printer "Demo Printer" --url https://127.0.0.1:8443 --ca '/tmp/my demo/tls/cert.pem'\n`,
    );
    const curl = curlSequence({ url: 'https://127.0.0.1:8443', printerId: info.printerId, tls });
    expect(
      curl
        .filter((l) => l.includes('curl '))
        .every((l) => l.includes("curl -s --cacert '/tmp/my demo/tls/cert.pem' ")),
    ).toBe(true);
    expect(curl.filter((l) => l.includes('curl ')).length).toBe(5);
    expect(banner).not.toContain('--ca');
    expect(banner).not.toContain('TLS certificate');
  });

  it('shows the URLs, the output folder and every demo credential', () => {
    for (const text of [
      info.url,
      info.printerUri,
      info.printedDir,
      'demo-app / demo-secret',
      'admin@demo.test / demo-admin',
      'alice@demo.test / demo-alice',
      '04A1B2C3D4',
      'demo-device',
      'admin@other.test / other-admin',
      'partner@partner.test / demo-partner',
      'client partner-app / partner-secret',
      'manages "Demo Org" and "Other Org"',
      'http://127.0.0.1:8080/_emulator/mail',
    ]) {
      expect(banner).toContain(text);
    }
  });

  it('ends with the ready line, and no earlier line says ready', () => {
    const lines = banner.trimEnd().split('\n');
    expect(lines.at(-1)).toBe(READY_LINE);
    expect(lines.slice(0, -1).some((l) => /\bready\b/.test(l))).toBe(false);
  });

  it('the curl sequence walks token, PrepareUpload, upload, Print, Status in order', () => {
    const text = curlSequence(info).join('\n');
    const order = [
      '/oauth/access_token/',
      '/sfapi/PrepareUpload/',
      'x-ms-blob-type: BlockBlob',
      '/sfapi/Print/',
      '/sfapi/Status/',
    ];
    const positions = order.map((needle) => text.indexOf(needle));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(text).toContain(info.printerId);
  });
});

describe('LineReporter', () => {
  it('prints stages, upload quarters and status changes once each', () => {
    const lines: string[] = [];
    const reporter = new LineReporter((line) => lines.push(line));
    reporter.stage('uploading a.pdf');
    for (const sent of [0, 10, 30, 60, 100]) reporter.uploaded(sent, 100);
    const processing = {
      jobpagesprinted: 0,
      jobpagestotal: 2,
      jobposition: 1,
      jobstatus: 129,
      jobstatusstring: 'PRINTING|',
    };
    reporter.status(processing);
    reporter.status(processing);
    reporter.status({ ...processing, jobpagesprinted: 2, jobstatus: 0, jobstatusstring: 'COMPLETED|' });
    expect(lines).toEqual([
      'uploading a.pdf',
      'uploaded 0% (0 of 100 bytes)',
      'uploaded 30% (30 of 100 bytes)',
      'uploaded 60% (60 of 100 bytes)',
      'uploaded 100% (100 of 100 bytes)',
      'status 129 PRINTING| pages 0/2',
      'status 0 COMPLETED| pages 2/2',
    ]);
  });
});
