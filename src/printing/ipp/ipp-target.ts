/**
 * Where and how to reach a printer, parsed from an ipp:// or ipps:// URI with its TLS policy
 * (docs/ipp.md, TLS). Pure; nothing to clean up.
 */
import { ValidationError } from '../../lib/errors.js';

/** Where and how to reach a printer, parsed from an ipp:// or ipps:// URI. */
export interface IppTarget {
  /** The printer-uri sent in requests (query parameters removed). */
  printerUri: string;
  secure: boolean;
  host: string;
  port: number;
  path: string;
  /** ipps only: verify the certificate chain and host name (default false: printers are self-signed). */
  tlsVerify: boolean;
  /** ipps only: the SHA-256 fingerprint the certificate must have (AA:BB:..., case-insensitive). */
  tlsFingerprint?: string;
}

/**
 * Parses ipp://host[:port]/path[?tls-verify=true|false][&tls-fingerprint=AA:BB:...]. The default
 * port is 631. Throws ValidationError naming `uri` for anything else.
 */
export function parseIppTarget(uri: string): IppTarget {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new ValidationError('uri', 'must be an absolute ipp:// or ipps:// URI', 'uri: not an absolute URI');
  }
  if (url.protocol !== 'ipp:' && url.protocol !== 'ipps:') {
    throw new ValidationError(
      'uri',
      'scheme must be ipp or ipps',
      `uri: scheme ${url.protocol} is not ipp/ipps`,
    );
  }
  const verify = url.searchParams.get('tls-verify');
  if (verify !== null && verify !== 'true' && verify !== 'false') {
    throw new ValidationError('uri', 'tls-verify must be true or false');
  }
  const fingerprint = url.searchParams.get('tls-fingerprint') ?? undefined;
  if (fingerprint !== undefined && !/^([0-9a-f]{2}:){31}[0-9a-f]{2}$/i.test(fingerprint)) {
    throw new ValidationError('uri', 'tls-fingerprint must be a SHA-256 fingerprint AA:BB:... (32 bytes)');
  }
  const path = url.pathname || '/';
  const printerUri = `${url.protocol}//${url.host}${path}`;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return {
    printerUri,
    secure: url.protocol === 'ipps:',
    host,
    port: url.port ? Number(url.port) : 631,
    path,
    tlsVerify: verify === 'true',
    tlsFingerprint: fingerprint?.toUpperCase(),
  };
}
