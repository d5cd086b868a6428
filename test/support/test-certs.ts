/**
 * Certificates for TLS tests, made with the real openssl in a temp directory: a private CA, a
 * leaf it signs (for chosen names, optionally with chosen validity dates, e.g. already expired),
 * and a self-signed leaf. PEM text is returned; the caller removes the directory.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A key and certificate in PEM. */
export interface KeyPair {
  key: string;
  cert: string;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
}

function sanOf(names: string[]): string {
  return names.map((n) => (/^[\d.]+$/.test(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
}

/** A self-signed certificate for `names`, valid for a day. */
export function selfSigned(dir: string, id: string, names: string[]): KeyPair {
  openssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    `/CN=${names[0]}`,
    '-addext',
    `subjectAltName=${sanOf(names)}`,
    '-keyout',
    `${id}.key`,
    '-out',
    `${id}.pem`,
  ]);
  return {
    key: readFileSync(join(dir, `${id}.key`), 'utf8'),
    cert: readFileSync(join(dir, `${id}.pem`), 'utf8'),
  };
}

/** A private CA (its own self-signed root). */
export function privateCa(dir: string): KeyPair {
  openssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=PrintRelay Test Root CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
  ]);
  return { key: readFileSync(join(dir, 'ca.key'), 'utf8'), cert: readFileSync(join(dir, 'ca.pem'), 'utf8') };
}

/**
 * A leaf for `names` signed by the CA of privateCa(dir). `dates` (YYYYMMDDHHMMSSZ) set the
 * validity through `openssl ca`, which can issue certificates that expired long ago.
 */
export function signedLeaf(
  dir: string,
  id: string,
  names: string[],
  dates?: { start: string; end: string },
): KeyPair {
  openssl(dir, [
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    `/CN=${names[0]}`,
    '-keyout',
    `${id}.key`,
    '-out',
    `${id}.csr`,
  ]);
  writeFileSync(join(dir, `${id}.ext`), `subjectAltName=${sanOf(names)}\n`);
  writeFileSync(join(dir, 'index.txt'), '');
  writeFileSync(join(dir, 'serial'), `${Date.now().toString(16).padStart(16, '0')}\n`);
  writeFileSync(
    join(dir, 'ca.cnf'),
    [
      '[ca]',
      'default_ca = test_ca',
      '[test_ca]',
      'dir = .',
      'database = index.txt',
      'new_certs_dir = .',
      'serial = serial',
      'default_md = sha256',
      'policy = any',
      'unique_subject = no',
      '[any]',
      'commonName = supplied',
      '',
    ].join('\n'),
  );
  const validity = dates ? ['-startdate', dates.start, '-enddate', dates.end] : ['-days', '1'];
  openssl(dir, [
    'ca',
    '-batch',
    '-config',
    'ca.cnf',
    '-cert',
    'ca.pem',
    '-keyfile',
    'ca.key',
    '-in',
    `${id}.csr`,
    '-out',
    `${id}.pem`,
    '-extfile',
    `${id}.ext`,
    '-notext',
    ...validity,
  ]);
  return {
    key: readFileSync(join(dir, `${id}.key`), 'utf8'),
    cert: readFileSync(join(dir, `${id}.pem`), 'utf8'),
  };
}
