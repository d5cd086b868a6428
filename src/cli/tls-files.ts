/**
 * The key and certificate the emulator serves HTTPS with: given files (`--tls-cert/--tls-key`),
 * or a self-signed certificate for localhost, 127.0.0.1 and ::1 created on first use in
 * `<data-dir>/tls/` (directory 0700, key 0600) and reused after. Returns the SHA-256
 * fingerprint to print, so clients can pin it.
 */
import { X509Certificate } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from './cli-runtime.js';

/** PEM key and certificate with the certificate's SHA-256 fingerprint. */
export interface TlsMaterial {
  key: string;
  cert: string;
  fingerprint: string;
  /** Where the certificate is (clients trust it from there). */
  certFile: string;
  /** Whether it was created by this call. */
  created: boolean;
}

/** Reads --tls-cert/--tls-key; both must be given together. */
export async function readTlsFiles(certFile: string, keyFile: string): Promise<TlsMaterial> {
  const [cert, key] = await Promise.all([readPem(certFile, '--tls-cert'), readPem(keyFile, '--tls-key')]);
  return { key, cert, fingerprint: fingerprintOf(cert, '--tls-cert'), certFile, created: false };
}

/** The self-signed certificate of a data directory, created on first use. */
export async function selfSignedTls(dataDir: string): Promise<TlsMaterial> {
  const dir = join(dataDir, 'tls');
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  try {
    const [cert, key] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
    return { key, cert, fingerprint: fingerprintOf(cert, certFile), certFile, created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  // selfsigned is CommonJS: its exports object is the default export, loaded by node or from the
  // bundle's chunk alike (the bundle's chunk has no named exports for it).
  const { generate } = (await import('selfsigned')).default;
  const made = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 825 * 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  await writeFile(keyFile, made.private, { mode: 0o600, flag: 'wx' });
  await writeFile(certFile, made.cert, { mode: 0o600, flag: 'wx' });
  return {
    key: made.private,
    cert: made.cert,
    fingerprint: fingerprintOf(made.cert, certFile),
    certFile,
    created: true,
  };
}

async function readPem(file: string, option: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(
      `${option}: ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}

function fingerprintOf(cert: string, where: string): string {
  try {
    return new X509Certificate(cert).fingerprint256;
  } catch {
    throw new CliError(`${where}: not a PEM certificate`);
  }
}
