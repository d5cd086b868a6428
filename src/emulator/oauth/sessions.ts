/**
 * Browser sessions of the emulator's sign-in pages. A session id lives in a signed, HttpOnly,
 * SameSite=Lax cookie (@fastify/cookie, secret from the caller); the store keeps its hash, the
 * signed-in user and a per-session CSRF token every form must send back. Signing in replaces
 * the session (new id: no session fixation). Time from the injected clock; stateless over the
 * store, nothing to clean up.
 */
import { timingSafeEqual } from 'node:crypto';
import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../lib/clock.js';
import type { OAuthRecords } from './oauth-records.js';
import { randomToken } from '../store/secret-hash.js';
import { type SessionRecord, SessionRepo } from './session-repo.js';
import type { User } from '../accounts/accounts-face.js';

/** Name of the session cookie. */
export const SESSION_COOKIE = 'printrelay_session';
/** Session lifetime (sign-in is remembered this long). */
export const SESSION_TTL_MS = 8 * 3600 * 1000;

/** An open session of a request. */
export interface BrowserSession {
  id: string;
  record: SessionRecord;
  /** The signed-in user, if any. */
  user: User | undefined;
}

/** Reads, creates and signs in browser sessions. */
export class SessionService {
  private readonly repo: SessionRepo;

  constructor(
    private readonly records: OAuthRecords,
    private readonly clock: Clock,
  ) {
    this.repo = new SessionRepo(records.db);
  }

  /** The request's live session, or a new anonymous one (cookie set on `reply`). */
  open(request: FastifyRequest, reply: FastifyReply): BrowserSession {
    const existing = this.current(request);
    if (existing) return existing;
    return this.create(request, reply, undefined);
  }

  /** The request's live session, or undefined (no cookie, bad signature, expired, unknown). */
  current(request: FastifyRequest): BrowserSession | undefined {
    const raw = request.cookies[SESSION_COOKIE];
    if (raw === undefined) return undefined;
    const unsigned = request.unsignCookie(raw);
    if (!unsigned.valid || unsigned.value === null) return undefined;
    const record = this.repo.find(unsigned.value);
    if (!record || record.expiresAt <= this.clock.now()) return undefined;
    const user = record.userId === null ? undefined : this.records.users.findById(record.userId);
    return { id: unsigned.value, record, user };
  }

  /** Replaces `previous` with a new session of `user` (new id and CSRF token). */
  signIn(
    request: FastifyRequest,
    reply: FastifyReply,
    previous: BrowserSession | undefined,
    user: User,
  ): BrowserSession {
    if (previous) this.repo.delete(previous.id);
    return this.create(request, reply, user);
  }

  /** Whether `token` is the session's CSRF token (constant-time comparison). */
  checkCsrf(session: BrowserSession | undefined, token: unknown): boolean {
    if (!session || typeof token !== 'string') return false;
    const expected = Buffer.from(session.record.csrfToken);
    const actual = Buffer.from(token);
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  }

  private create(request: FastifyRequest, reply: FastifyReply, user: User | undefined): BrowserSession {
    const now = this.clock.now();
    this.repo.deleteExpired(now);
    const id = randomToken();
    const record: SessionRecord = {
      userId: user?.id ?? null,
      csrfToken: randomToken(),
      createdAt: now,
      expiresAt: now + SESSION_TTL_MS,
    };
    this.repo.insert(id, record);
    reply.setCookie(SESSION_COOKIE, id, {
      signed: true,
      httpOnly: true,
      sameSite: 'lax',
      secure: request.protocol === 'https',
      path: '/oauth',
      maxAge: SESSION_TTL_MS / 1000,
    });
    return { id, record, user };
  }
}
