/**
 * Keeps the connector's tokens in `<dataDir>/tokens.json` (mode 0600). Refreshes the access
 * token ahead of expiry; every rotated refresh token is written atomically (temp file, fsync,
 * rename, directory fsync) BEFORE the new access token is handed out, so a crash never loses
 * the only valid refresh token. Before a refresh is sent, a retry key is written with the old
 * tokens and sent along: a process that dies after the server rotated but before the new tokens
 * were written finds the key on disk and retries the same refresh with it, which the server
 * answers again instead of treating it as a replay (docs/operations.md "Token storage").
 * Concurrent callers share one refresh.
 */
import { readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import type { Logger } from '../log/logger.js';
import type { Clock } from '../lib/clock.js';
import { PermanentError, PrintRelayError } from '../lib/errors.js';
import type { TokenSource } from './http-base.js';
import { writeFileAtomic } from '../lib/atomic-file.js';
import type { TokenResponse } from './oauth-client.js';

/** Moved to lib/atomic-file.ts; re-exported for existing callers. */
export { writeFileAtomic };

/** The token file of an agent data directory: `<dataDir>/tokens.json`. */
export function tokensPath(dataDir: string): string {
  return join(dataDir, 'tokens.json');
}

/** What tokens.json holds. */
export interface StoredTokens {
  access_token: string;
  /** Epoch ms when the access token expires. */
  access_expires_at: number;
  refresh_token: string | undefined;
  scope: string | undefined;
  /**
   * Written BEFORE a refresh is sent and sent with it; present after a crash mid-refresh, so the
   * same refresh is retried with the same key and the server answers it again (see
   * emulator/oauth/refresh-retry-cache.ts). Cleared when the rotated tokens are stored.
   */
  refresh_retry_key?: string;
}

/** How new tokens are obtained; the agent wires these to oauth-client.ts. */
export interface TokenGrants {
  /** `retryKey` identifies this refresh across retries (lost answer, crash); send it along. */
  refresh(refreshToken: string, retryKey?: string): Promise<TokenResponse>;
  /** Used when there is no refresh token, or it was refused; absent after pairing. */
  password?: () => Promise<TokenResponse>;
}

/** Settings of a TokenStore. */
export interface TokenStoreOptions {
  path: string;
  grants: TokenGrants;
  clock: Clock;
  logger: Logger;
  /** Refresh this long before expiry (default 60 s). */
  refreshAheadMs?: number;
  /** Injectable for tests; default writeFileAtomic. */
  persist?: (path: string, data: string) => void;
  /** Writes the tokens with a new retry key before a refresh; injectable for tests, default writeFileAtomic. */
  persistRetryKey?: (path: string, data: string) => void;
}

/** A TokenSource backed by a file; no resources to clean up. */
export class TokenStore implements TokenSource {
  private tokens: StoredTokens | undefined;
  private loaded = false;
  private pending: Promise<string> | undefined;

  constructor(private readonly options: TokenStoreOptions) {}

  /** A valid access token, refreshing (once, shared) when missing or about to expire. */
  token(): Promise<string> {
    const current = this.current();
    if (current && current.access_expires_at - this.aheadMs() > this.options.clock.now()) {
      return Promise.resolve(current.access_token);
    }
    if (!this.pending) {
      this.pending = this.renew().finally(() => {
        this.pending = undefined;
      });
    }
    return this.pending;
  }

  /** Marks `rejected` as unusable so the next token() refreshes. */
  invalidate(rejected: string): void {
    const current = this.current();
    if (current && current.access_token === rejected) {
      this.tokens = { ...current, access_expires_at: 0 };
    }
  }

  /** Stores tokens obtained elsewhere (pairing, the CLI's password login). */
  save(response: TokenResponse): void {
    this.persistResponse(response);
  }

  /** The stored tokens, read from the file once. */
  current(): StoredTokens | undefined {
    if (!this.loaded) {
      this.loaded = true;
      removeStaleTempFiles(this.options.path);
      this.tokens = readStoredTokens(this.options.path);
    }
    return this.tokens;
  }

  private aheadMs(): number {
    return this.options.refreshAheadMs ?? 60_000;
  }

  private async renew(): Promise<string> {
    const current = this.current();
    const refresh = current?.refresh_token;
    const { grants, logger } = this.options;
    if (current && refresh) {
      try {
        const response = await grants.refresh(refresh, this.retryKeyFor(current));
        return this.persistResponse(response, refresh);
      } catch (error) {
        if (!(error instanceof PermanentError)) throw error;
        if (!grants.password) throw refusedWithoutPassword(error);
        logger.warn({ err: error }, 'refresh token refused; signing in again with the password grant');
      }
    }
    if (!grants.password) {
      throw new PrintRelayError(
        'not_paired',
        'no refresh token stored and no password configured: pair the agent first',
      );
    }
    return this.persistResponse(await grants.password());
  }

  /** The pending refresh's retry key, or a new one persisted before the refresh is sent. */
  private retryKeyFor(current: StoredTokens): string {
    if (current.refresh_retry_key) return current.refresh_retry_key;
    const next = { ...current, refresh_retry_key: randomBytes(24).toString('base64url') };
    this.write(next, this.options.persistRetryKey ?? writeFileAtomic);
    return next.refresh_retry_key;
  }

  private write(tokens: StoredTokens, persist = this.options.persist): void {
    (persist ?? writeFileAtomic)(this.options.path, `${JSON.stringify(tokens, null, 2)}\n`);
    this.tokens = tokens;
    this.loaded = true;
  }

  /** Persists first, then makes the new access token current and returns it. */
  private persistResponse(response: TokenResponse, previousRefresh?: string): string {
    const next: StoredTokens = {
      access_token: response.access_token,
      access_expires_at: this.options.clock.now() + response.expires_in * 1000,
      refresh_token: response.refresh_token ?? previousRefresh,
      scope: response.scope,
    };
    this.write(next);
    return next.access_token;
  }
}

/**
 * A refused refresh token with no password to fall back on: the agent must be paired again.
 * (A network failure is not a refusal: the same refresh token is tried again later, which the
 * emulator honours within its reuse grace; see docs/operations.md "Token storage".)
 */
function refusedWithoutPassword(cause: PermanentError): PrintRelayError {
  return new PrintRelayError(
    'not_paired',
    `the stored refresh token was refused (${cause.message}): pair the agent again with \`printrelay agent pair --config FILE\``,
    { cause },
  );
}

/** Removes temp files of writeFileAtomic left by processes that died mid-write (by pid). */
export function removeStaleTempFiles(path: string): number {
  const prefix = `${basename(path)}.`;
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return 0;
  }
  for (const name of names) {
    const pid = name.startsWith(prefix) && name.endsWith('.tmp') ? Number(name.slice(prefix.length, -4)) : 0;
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || processAlive(pid)) continue;
    try {
      unlinkSync(join(dirname(path), name));
      removed++;
    } catch {
      // removed by someone else meanwhile
    }
  }
  return removed;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Reads a token file without refreshing anything; undefined when there is none (doctor, store). */
export function readStoredTokens(path: string): StoredTokens | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const parsed = JSON.parse(text) as Partial<StoredTokens>;
  if (typeof parsed.access_token !== 'string' || typeof parsed.access_expires_at !== 'number') {
    throw new PrintRelayError(
      'invalid_token_file',
      `${path}: access_token and access_expires_at are required`,
    );
  }
  return {
    access_token: parsed.access_token,
    access_expires_at: parsed.access_expires_at,
    refresh_token: parsed.refresh_token,
    scope: parsed.scope,
    ...(typeof parsed.refresh_retry_key === 'string' ? { refresh_retry_key: parsed.refresh_retry_key } : {}),
  };
}
