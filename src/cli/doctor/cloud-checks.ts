/**
 * Doctor checks of the way to the cloud: the name resolves (DNS), the cloud's host and port accept
 * a connection (over http as over https: an unreachable cloud fails), TLS holds up (and when it does
 * not, which certificate problem it is: self-signed, expired, not yet valid, hostname mismatch,
 * unknown CA), the clock agrees with the cloud's Date header, and the stored access token is
 * accepted. Nothing here spends the refresh token: a running agent would lose its tokens.
 */
import { lookup } from 'node:dns/promises';
import { connect as connectTcp, isIP } from 'node:net';
import { checkServerIdentity, connect, type PeerCertificate, rootCertificates } from 'node:tls';
import { Agent as UndiciAgent, request } from 'undici';
import { readStoredTokens } from '../../client/token-store.js';
import type { Clock } from '../../lib/clock.js';
import { errorMessage } from '../../lib/errors.js';
import { type Check, type CheckResult, fail, ok, skip, warn } from './doctor-check.js';

/** A clock skew above this fails (tokens and signed URLs carry times); above a tenth, it warns. */
const MAX_SKEW_MS = 5 * 60_000;

/** What the cloud checks need. */
export interface CloudCheckDeps {
  cloudUrl: string;
  clock: Clock;
  /** Path of tokens.json (may be missing). */
  tokensFile: string;
  /** cloud.username and cloud.password are set: the agent can sign in without stored tokens. */
  passwordConfigured?: boolean;
  /** Extra trusted CA certificates (PEM), like NODE_EXTRA_CA_CERTS; tests pass theirs. */
  ca?: string[];
}

/** The checks in order: DNS, reachability, TLS, clock, token. */
export function cloudChecks(deps: CloudCheckDeps): Check[] {
  const url = new URL(deps.cloudUrl);
  return [
    { name: 'dns', run: () => checkDns(url.hostname) },
    { name: 'cloud', run: (signal) => checkReachable(url, signal) },
    { name: 'tls', run: (signal) => checkTls(url, deps.ca, signal) },
    { name: 'clock', run: (signal) => checkClock(deps, signal) },
    { name: 'token', run: (signal) => checkToken(deps, signal) },
  ];
}

async function checkDns(hostname: string): Promise<CheckResult> {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return ok('dns', `${host} is an IP address (nothing to resolve)`);
  try {
    const addresses = await lookup(host, { all: true });
    return ok('dns', `${host} resolves to ${addresses.map((a) => a.address).join(', ')}`);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? errorMessage(error);
    return fail(
      'dns',
      `${host} does not resolve (${code})`,
      'check the spelling of cloud.url and the DNS servers of this machine (/etc/resolv.conf, or the proxy)',
    );
  }
}

/** The cloud's host and port accept a TCP connection (a refused or silent one fails). */
async function checkReachable(url: URL, signal: AbortSignal): Promise<CheckResult> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const where = `${url.protocol}//${url.host}`;
  try {
    await new Promise<void>((resolve, reject) => {
      const socket = connectTcp({ host, port });
      const abort = () => socket.destroy(new Error('no answer'));
      signal.addEventListener('abort', abort, { once: true });
      socket.once('connect', () => {
        signal.removeEventListener('abort', abort);
        socket.end();
        resolve();
      });
      socket.once('error', (error) => {
        signal.removeEventListener('abort', abort);
        reject(error);
      });
    });
    return ok('cloud', `${where} accepts connections`);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? errorMessage(error);
    return fail(
      'cloud',
      `${where} does not answer (${code}): the agent can neither fetch jobs nor report them`,
      'start the cloud service, or correct cloud.url (host and port); check the firewall and any proxy between this machine and the cloud',
    );
  }
}

/** Certificate problems by OpenSSL/Node code: what it is and how to fix it. */
const TLS_PROBLEMS: Record<string, [string, string]> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: [
    'the certificate is self-signed',
    'install a certificate from a trusted CA on the server, or trust this one: NODE_EXTRA_CA_CERTS=/path/cert.pem in the service environment',
  ],
  SELF_SIGNED_CERT_IN_CHAIN: [
    'the chain ends in a self-signed root this machine does not trust (a private CA)',
    'trust the private root: NODE_EXTRA_CA_CERTS=/path/root-ca.pem in the service environment',
  ],
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: [
    'the certificate was issued by an unknown CA',
    'trust the issuing CA (NODE_EXTRA_CA_CERTS=/path/ca.pem), or have the server send its intermediate certificates',
  ],
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: [
    'the certificate was issued by an unknown CA (no issuer certificate to verify it)',
    'have the server send its full chain (leaf + intermediates), or trust the CA with NODE_EXTRA_CA_CERTS',
  ],
  CERT_HAS_EXPIRED: ['the certificate has expired', 'renew the certificate on the server'],
  CERT_NOT_YET_VALID: [
    'the certificate is not valid yet',
    'check this machine’s clock (see the clock check), or the certificate’s start date',
  ],
};

async function checkTls(url: URL, ca: string[] | undefined, signal: AbortSignal): Promise<CheckResult> {
  if (url.protocol !== 'https:') {
    return warn(
      'tls',
      `${url.origin} is plain http: tokens travel unencrypted`,
      'use an https:// cloud.url outside a lab',
    );
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || 443);
  const { cert, authorizationError } = await peerCertificate(host, port, ca, signal);
  const dates = `valid ${cert.valid_from} to ${cert.valid_to}`;
  const subject = `${cert.subject?.CN ?? '?'} issued by ${cert.issuer?.CN ?? cert.issuer?.O ?? '?'}`;
  if (authorizationError && authorizationError !== 'ERR_TLS_CERT_ALTNAME_INVALID') {
    const [what, fix] = TLS_PROBLEMS[authorizationError] ?? [
      `the chain is not trusted (${authorizationError})`,
      'check the server certificate chain',
    ];
    return fail('tls', `${url.host}: ${what} [${authorizationError}]: ${subject}, ${dates}`, fix);
  }
  const mismatch = checkServerIdentity(host, cert);
  if (mismatch) {
    const names = cert.subjectaltname ?? `CN=${cert.subject?.CN ?? '?'}`;
    return fail(
      'tls',
      `${url.host}: hostname mismatch: the certificate is for ${names}`,
      'use a cloud.url with a name the certificate lists, or get a certificate that lists this name',
    );
  }
  return ok('tls', `${url.host}: trusted certificate ${subject}, ${dates}`);
}

function peerCertificate(
  host: string,
  port: number,
  ca: string[] | undefined,
  signal: AbortSignal,
): Promise<{ cert: PeerCertificate; authorizationError?: string }> {
  return new Promise((resolve, reject) => {
    const extra = ca ? { ca: [...defaultCas(), ...ca] } : {};
    const socket = connect({
      host,
      port,
      servername: isIP(host) ? undefined : host,
      rejectUnauthorized: false,
      ...extra,
    });
    const abort = () => socket.destroy(signal.reason as Error);
    signal.addEventListener('abort', abort, { once: true });
    socket.once('secureConnect', () => {
      const cert = socket.getPeerCertificate();
      const error = socket.authorizationError as unknown as Error | string | null;
      const code = error ? ((error as { code?: string }).code ?? String(error)) : undefined;
      socket.end();
      signal.removeEventListener('abort', abort);
      resolve({ cert, ...(code ? { authorizationError: code } : {}) });
    });
    socket.once('error', (error) => {
      signal.removeEventListener('abort', abort);
      reject(new Error(`TLS connection to ${host}:${port} failed: ${errorMessage(error)}`));
    });
  });
}

/** Node's bundled roots: an explicit `ca` option replaces them, so extra CAs are added to these. */
function defaultCas(): string[] {
  return [...rootCertificates];
}

async function checkClock(deps: CloudCheckDeps, signal: AbortSignal): Promise<CheckResult> {
  const dispatcher = deps.ca
    ? new UndiciAgent({ connect: { ca: [...defaultCas(), ...deps.ca] } })
    : undefined;
  try {
    const res = await request(deps.cloudUrl, {
      method: 'HEAD',
      signal,
      ...(dispatcher ? { dispatcher } : {}),
    });
    await res.body.dump();
    const date = res.headers.date;
    const serverMs = Date.parse(Array.isArray(date) ? (date[0] ?? '') : (date ?? ''));
    if (Number.isNaN(serverMs)) return skip('clock', 'the cloud sent no Date header to compare with');
    const skewMs = deps.clock.now() - serverMs;
    const text = `this machine is ${Math.abs(Math.round(skewMs / 1000))} s ${skewMs >= 0 ? 'ahead of' : 'behind'} the cloud`;
    const fix = 'synchronize the clock (timedatectl set-ntp true, or chrony/ntpd; on Windows: w32tm /resync)';
    if (Math.abs(skewMs) > MAX_SKEW_MS)
      return fail('clock', `${text} (tokens and signed URLs will be refused)`, fix);
    if (Math.abs(skewMs) > MAX_SKEW_MS / 10) return warn('clock', text, fix);
    return ok('clock', text);
  } catch (error) {
    return skip('clock', `cannot compare: the cloud did not answer (${errorMessage(error)})`);
  } finally {
    await dispatcher?.close();
  }
}

async function checkToken(deps: CloudCheckDeps, signal: AbortSignal): Promise<CheckResult> {
  let tokens: ReturnType<typeof readStoredTokens>;
  try {
    tokens = readStoredTokens(deps.tokensFile);
  } catch (error) {
    return fail(
      'token',
      `${deps.tokensFile} cannot be read: ${errorMessage(error)}`,
      'run the doctor as the agent’s user, or pair again',
    );
  }
  const pair = `printrelay agent pair --config FILE (as the agent's user)`;
  if (!tokens && deps.passwordConfigured) {
    return warn(
      'token',
      `no tokens stored in ${deps.tokensFile}; the agent signs in with the configured password`,
      `pair the agent and remove the password from the file: ${pair}`,
    );
  }
  if (!tokens) return fail('token', `no tokens stored in ${deps.tokensFile}`, `pair the agent: ${pair}`);
  if (tokens.access_expires_at <= deps.clock.now()) {
    const refresh = tokens.refresh_token ? 'a refresh token is stored' : 'no refresh token is stored';
    return warn(
      'token',
      `the access token expired at ${new Date(tokens.access_expires_at).toISOString()}; ${refresh} (not spent by the doctor: the agent refreshes it)`,
      tokens.refresh_token ? 'start the agent and check printrelay status' : `pair the agent: ${pair}`,
    );
  }
  const dispatcher = deps.ca
    ? new UndiciAgent({ connect: { ca: [...defaultCas(), ...deps.ca] } })
    : undefined;
  try {
    // a read the agent itself makes with this token (printer sync), so the scopes are the agent's
    const res = await request(new URL('/printing/v1/printers/?limit=1', deps.cloudUrl), {
      headers: { authorization: `Bearer ${tokens.access_token}` },
      signal,
      ...(dispatcher ? { dispatcher } : {}),
    });
    await res.body.dump();
    if (res.statusCode === 401)
      return fail(
        'token',
        'the cloud refuses the stored access token (401)',
        `pair the agent again: ${pair}`,
      );
    if (res.statusCode >= 400)
      return warn(
        'token',
        `the cloud answered HTTP ${res.statusCode} to the token check`,
        'check printrelay status once the agent runs',
      );
    return ok(
      'token',
      `the cloud accepts the stored access token (valid until ${new Date(tokens.access_expires_at).toISOString()})`,
    );
  } catch (error) {
    return skip('token', `cannot check: the cloud did not answer (${errorMessage(error)})`);
  } finally {
    await dispatcher?.close();
  }
}
