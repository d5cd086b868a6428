/**
 * What the logger hides. Secrets are redacted by the logger, never by callers: field names that
 * always hold secrets are censored whole, and every string that reaches a log line is scrubbed
 * of bearer/basic credentials, JWTs, signed URL query strings and any exact secret value
 * registered at run time (configured passwords, card numbers seen by a reader).
 */

/** Field names whose values are always secret, wherever they appear in a log object. */
export const SECRET_KEYS = [
  'authorization',
  'password',
  'pull_printing_password',
  'pullPrintingPassword',
  'device_password',
  'basic_password',
  'basicPassword',
  'token',
  'access_token',
  'accessToken',
  'refresh_token',
  'refreshToken',
  'id_token',
  'client_secret',
  'clientSecret',
  'secret',
  'code_verifier',
  'pairing_code',
  'cookie',
  'set-cookie',
  'card',
  'cardNumber',
  'card_number',
  'sasUri',
  'sas_uri',
  'uploadUri',
] as const;

const secretKeySet = new Set<string>(SECRET_KEYS.map((k) => k.toLowerCase()));

export const CENSORED = '[redacted]';

const patterns: [RegExp, string | ((match: string, ...groups: string[]) => string)][] = [
  // Authorization header values.
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{4,}/gi, (_m, scheme: string) => `${scheme} ${CENSORED}`],
  // JWTs anywhere (three base64url parts, the first starting with eyJ).
  [/eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, CENSORED],
  // URLs with a query string: the whole query string goes (signed upload URLs, tokens in query).
  [/(\bhttps?:\/\/[^\s"'?#]+)\?[^\s"'#]*/gi, (_m, base: string) => `${base}?${CENSORED}`],
  // Credentials in URLs (scheme://user:pass@host).
  [/(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/:@"']+:[^\s/@"']+@/gi, (_m, scheme: string) => `${scheme}${CENSORED}@`],
  // form-encoded secrets (password=..., refresh_token=..., code=...).
  [
    /\b(password|refresh_token|access_token|client_secret|code|code_verifier|pairing_code|sig)=[^&\s"']+/gi,
    (_m, key: string) => `${key}=${CENSORED}`,
  ],
];

/** Scrubs secrets out of strings and objects before they are written to a log. */
export class Redactor {
  private readonly exact = new Set<string>();

  /** Registers a value that must never be logged (ignored when shorter than 4 characters). */
  add(secret: string | undefined | null): void {
    if (secret && secret.length >= 4) this.exact.add(secret);
  }

  scrubString(value: string): string {
    let out = value;
    for (const secret of this.exact) {
      if (out.includes(secret)) out = out.split(secret).join(CENSORED);
    }
    for (const [pattern, replacement] of patterns) {
      out = out.replace(pattern, replacement as never);
    }
    return out;
  }

  /** A scrubbed copy of any value; objects and arrays are walked (cycles cut). */
  scrub(value: unknown, seen = new WeakSet<object>()): unknown {
    if (typeof value === 'string') return this.scrubString(value);
    if (value === null || typeof value !== 'object') return value;
    if (seen.has(value)) return '[circular]';
    seen.add(value);
    if (value instanceof Error) {
      return {
        type: value.name,
        message: this.scrubString(value.message),
        stack: this.scrubString(value.stack ?? ''),
        code: (value as { code?: unknown }).code,
      };
    }
    if (Array.isArray(value)) return value.map((v) => this.scrub(v, seen));
    if (value instanceof URL) return this.scrubString(value.href);
    if (Buffer.isBuffer(value)) return `[${value.length} bytes]`;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      out[key] =
        secretKeySet.has(key.toLowerCase()) && v !== undefined && v !== null ? CENSORED : this.scrub(v, seen);
    }
    return out;
  }
}

/** A card number as it may be shown to people: all but the last two characters masked. */
export function maskCardNumber(card: string): string {
  if (card.length <= 2) return '*'.repeat(card.length);
  return `${'*'.repeat(Math.min(8, card.length - 2))}${card.slice(-2)}`;
}
