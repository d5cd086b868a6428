/**
 * Limits of OAuth client creation (spec Limits): 10 creations per admin per hour (429 with
 * Retry-After, seconds until the oldest creation of the window leaves it) and 100 clients created
 * through the API per organization (429 at once, no Retry-After: deleting a client frees a
 * place). Creations are logged in the store; time from the injected clock. Nothing to clean up.
 */
import type { Clock } from '../../lib/clock.js';
import { TooManyRequestsError } from '../../lib/errors.js';
import type { EmulatorStore } from '../emulator-store.js';
import { ClientCreationLogRepo } from './client-creation-log-repo.js';

/** Client creations one admin may make per window. */
export const CREATIONS_PER_ADMIN = 10;
/** The window of the per-admin limit. */
export const CREATION_WINDOW_MS = 3600 * 1000;
/** Live clients an organization may have created through the API. */
export const MAX_API_CLIENTS_PER_ORGANIZATION = 100;

/** Who creates a client. */
export interface Creator {
  userId: string;
  organizationId: string;
}

/** Checks and records client creations. */
export class ClientCreationLimits {
  private readonly log: ClientCreationLogRepo;

  constructor(
    private readonly store: EmulatorStore,
    private readonly clock: Clock,
  ) {
    this.log = new ClientCreationLogRepo(store.db);
  }

  /** Throws 429 when `creator` may not create another client now. */
  check(creator: Creator): void {
    if (this.store.clients.countApiCreated(creator.organizationId) >= MAX_API_CLIENTS_PER_ORGANIZATION) {
      throw new TooManyRequestsError(
        `the organization already has ${MAX_API_CLIENTS_PER_ORGANIZATION} clients created through the API; delete one first`,
        undefined,
        'too_many_clients',
      );
    }
    const now = this.clock.now();
    const recent = this.log.since(creator.userId, now - CREATION_WINDOW_MS + 1);
    if (recent.length >= CREATIONS_PER_ADMIN) {
      const oldest = recent[recent.length - CREATIONS_PER_ADMIN] ?? now;
      const retryAfterS = Math.max(1, Math.ceil((oldest + CREATION_WINDOW_MS - now) / 1000));
      throw new TooManyRequestsError(
        `at most ${CREATIONS_PER_ADMIN} client creations per admin per hour; retry in ${retryAfterS} seconds`,
        retryAfterS * 1000,
        'rate_limited',
      );
    }
  }

  /** Forgets the creations in `organizationId` (the organization is being deleted). */
  forgetOrganization(organizationId: string): void {
    this.log.deleteOfOrganization(organizationId);
  }

  /** Records a creation (after the client was stored). */
  record(creator: Creator, clientId: string): void {
    this.log.record(creator.userId, creator.organizationId, clientId, this.clock.now());
  }
}
