import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import {
  certificateProblem,
  readCaFile,
  trustedCas,
  untrustedCertificateError,
} from '../../../src/client/cloud-trust.js';
import { PermanentError } from '../../../src/lib/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'cloud-trust-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('readCaFile', () => {
  it('returns the PEM text of a certificate file', () => {
    const file = join(dir, 'ca.pem');
    writeFileSync(file, PEM);
    expect(readCaFile(file, 'cloud.ca_file')).toBe(PEM);
  });

  it('names the field and the file when it cannot be read', () => {
    const file = join(dir, 'missing.pem');
    expect(() => readCaFile(file, 'cloud.ca_file')).toThrow(
      new PermanentError('invalid_ca_file', `cloud.ca_file: cannot read ${file} (ENOENT)`),
    );
  });

  it('refuses a file without a PEM certificate', () => {
    const file = join(dir, 'key.pem');
    writeFileSync(file, '-----BEGIN PRIVATE KEY-----\n');
    expect(() => readCaFile(file, '--ca')).toThrow(
      `--ca: ${file} holds no PEM certificate (BEGIN CERTIFICATE)`,
    );
  });
});

describe('trustedCas', () => {
  it('keeps the system roots and adds the CA', () => {
    expect(trustedCas(PEM)).toEqual([...rootCertificates, PEM]);
    expect(trustedCas(undefined)).toBeUndefined();
  });
});

describe('untrusted certificates', () => {
  const tlsError = Object.assign(new Error('self-signed certificate'), {
    code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
  });

  it('finds the TLS reason in an error or its cause', () => {
    expect(certificateProblem(tlsError)).toBe('DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate');
    expect(certificateProblem(new Error('fetch failed', { cause: tlsError }))).toBe(
      'DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate',
    );
    const node24 = Object.assign(
      new Error(
        'self-signed certificate; if the root CA is installed locally, try running Node.js with --use-system-ca',
      ),
      { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' },
    );
    expect(certificateProblem(node24)).toBe('DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate');
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(certificateProblem(refused)).toBeUndefined();
  });

  it('is a permanent error naming the URL, the reason and the fix', () => {
    const error = untrustedCertificateError('GET https://cloud.example/x', tlsError);
    expect(error).toBeInstanceOf(PermanentError);
    expect(error?.code).toBe('tls_untrusted');
    expect(error?.message).toBe(
      "GET https://cloud.example/x: the server's TLS certificate is not trusted (DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate); trust the CA that signed it with cloud.ca_file in agent.yaml (printrelay print: --ca FILE)",
    );
    expect(
      untrustedCertificateError('GET https://cloud.example/x', new Error('socket hang up')),
    ).toBeUndefined();
  });
});
