/**
 * Trusting the cloud's TLS certificate: `cloud.ca_file` (agent.yaml) or `--ca` (CLI) names a PEM
 * file of a CA to trust besides the system's roots. Every connection to the cloud — the HTTP
 * pools, the token and pairing requests, the channel WebSocket and the /TPFM/ client — is given
 * the same list (`trustedCas`). A certificate the list does not cover is a PermanentError
 * (`tls_untrusted`) naming the URL and the TLS reason: waiting never fixes it.
 */
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { PermanentError } from '../lib/errors.js';

/** The system roots plus the PEM of `caFile`; undefined (the defaults) without a file. */
export function trustedCas(caPem: string | undefined): string[] | undefined {
  return caPem === undefined ? undefined : [...rootCertificates, caPem];
}

/**
 * Reads a PEM CA file; a PermanentError naming `field` (cloud.ca_file, --ca) when it cannot be
 * read or holds no certificate.
 */
export function readCaFile(file: string, field: string): string {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new PermanentError('invalid_ca_file', `${field}: cannot read ${file} (${code})`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----'))
    throw new PermanentError(
      'invalid_ca_file',
      `${field}: ${file} holds no PEM certificate (BEGIN CERTIFICATE)`,
    );
  return pem;
}

/** Error codes of a certificate that did not verify (Node's and OpenSSL's names). */
const UNTRUSTED_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** The hint every untrusted-certificate error ends with. */
export const UNTRUSTED_HINT =
  'trust the CA that signed it with cloud.ca_file in agent.yaml (printrelay print: --ca FILE)';

/**
 * Node 24 ends some certificate messages with advice about its own CA store; the PrintRelay hint
 * (cloud.ca_file) replaces it, so the message reads the same on every Node line.
 */
const NODE_CA_STORE_ADVICE =
  /; if the root CA is installed locally, try running Node\.js with --use-system-ca$/;

/** `CODE message` of a certificate verification failure in `error` or its causes; else undefined. */
export function certificateProblem(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && UNTRUSTED_CODES.has(code))
      return `${code}: ${e.message.replace(NODE_CA_STORE_ADVICE, '')}`;
  }
  return undefined;
}

/**
 * The error for a connection to `url` whose certificate did not verify, or undefined when
 * `error` is not one.
 */
export function untrustedCertificateError(url: string, error: unknown): PermanentError | undefined {
  const problem = certificateProblem(error);
  if (!problem) return undefined;
  return new PermanentError(
    'tls_untrusted',
    `${url}: the server's TLS certificate is not trusted (${problem}); ${UNTRUSTED_HINT}`,
    { cause: error },
  );
}
