/**
 * CORS of the emulator: a browser app may call it cross-origin (with credentials) only from an
 * origin of a registered OAuth client's redirect URL (any live client of any organization; for
 * an `http://localhost` redirect URL any port, as redirect matching allows) or an origin the
 * emulator was configured with (`--cors-origin`). Other origins get no CORS headers, so the
 * browser refuses their cross-origin calls and preflights. The registered redirect URLs come from
 * a function the composition (app.ts) gives, the clients domain's read; it is called on each
 * request that carries an Origin header not configured, so a client registered or deleted a
 * moment ago counts at once (the clients are few in a lab).
 */
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/** The origin of an allow-list entry (`https://app.example.com`); throws naming a bad one. */
export function corsOrigin(entry: string): string {
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    throw new Error(`"${entry}" is not an origin: give scheme, host and port, e.g. https://app.example.com`);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== entry.replace(/\/$/, '')) {
    throw new Error(
      `"${entry}" is not an origin: give scheme, host and port only, e.g. https://app.example.com`,
    );
  }
  return url.origin;
}

/** Decides which Origin headers get CORS answers. */
export class CorsPolicy {
  private readonly extra: Set<string>;

  constructor(
    /** The redirect URLs of every live registered client, read afresh on each call. */
    private readonly registeredRedirectUrls: () => readonly string[],
    extraOrigins: readonly string[] = [],
  ) {
    this.extra = new Set(extraOrigins.map(corsOrigin));
  }

  /** Whether a browser at `origin` may call the emulator cross-origin. */
  allows(origin: string): boolean {
    if (this.extra.has(origin)) return true;
    const loopbackHttp = /^http:\/\/localhost(:\d+)?$/.test(origin);
    return this.registeredRedirectUrls().some((uri) => {
      const registered = originOf(uri);
      if (registered === origin) return true;
      // An http://localhost redirect URL matches any port; so does its origin.
      return loopbackHttp && registered !== undefined && /^http:\/\/localhost(:\d+)?$/.test(registered);
    });
  }
}

function originOf(uri: string): string | undefined {
  try {
    const origin = new URL(uri).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/** Registers @fastify/cors with the policy: credentials allowed, only for allowed origins. */
export async function registerCors(app: FastifyInstance, policy: CorsPolicy): Promise<void> {
  await app.register(cors, {
    origin: (origin, callback) => callback(null, origin !== undefined && policy.allows(origin)),
    credentials: true,
    exposedHeaders: [
      'etag',
      'content-range',
      'www-authenticate',
      'x-printrelay-ignored-fields',
      'preference-applied',
    ],
  });
}
