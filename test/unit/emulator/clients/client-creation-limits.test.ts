import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO, defaultEmulatorSeed } from '../../../../src/config/demo-seed.js';
import {
  ClientCreationLimits,
  CREATION_WINDOW_MS,
  CREATIONS_PER_ADMIN,
  type Creator,
  MAX_API_CLIENTS_PER_ORGANIZATION,
} from '../../../../src/emulator/clients/client-creation-limits.js';
import { type EmulatorStore, openEmulatorStore } from '../../../../src/emulator/emulator-store.js';
import { SecretHasher } from '../../../../src/emulator/store/secret-hash.js';
import { applySeed } from '../../../../src/emulator/seed-loader.js';
import { ManualClock } from '../../../../src/lib/clock.js';
import { TooManyRequestsError } from '../../../../src/lib/errors.js';

let store: EmulatorStore;
let clock: ManualClock;
let limits: ClientCreationLimits;
let admin: Creator;

beforeEach(async () => {
  clock = new ManualClock();
  store = openEmulatorStore(':memory:');
  await applySeed(store, defaultEmulatorSeed(), clock.now(), new SecretHasher(clock));
  const user = store.users.findByEmail(DEMO.admin.email)!;
  admin = { userId: user.id, organizationId: user.organizationId };
  limits = new ClientCreationLimits(store, clock);
});
afterEach(() => store.db.close());

/** The refusal of check(): code, Retry-After in ms, message; or `allowed`. */
function refusal(creator: Creator): string {
  try {
    limits.check(creator);
  } catch (error) {
    if (error instanceof TooManyRequestsError) return `${error.code} ${error.retryAfterMs} ${error.message}`;
    throw error;
  }
  return 'allowed';
}

function createApiClient(n: number): void {
  store.clients.create(
    {
      clientId: `api-${n}`,
      organizationId: admin.organizationId,
      secretHash: null,
      name: `api ${n}`,
      externalDescription: '',
      clientType: 'public',
      grantTypes: ['authorization_code'],
      redirectUrls: [],
      allowedScopes: [],
      tenantMode: 'single',
      protected: false,
      origin: 'api',
    },
    clock.now(),
  );
}

describe('client creations per admin per hour', () => {
  it('allows ten in an hour, refuses the eleventh until the oldest leaves the window', () => {
    expect([CREATIONS_PER_ADMIN, CREATION_WINDOW_MS]).toEqual([10, 3600_000]);
    for (let i = 0; i < 10; i++) {
      expect(refusal(admin), `creation ${i + 1}`).toBe('allowed');
      limits.record(admin, `c${i}`);
      clock.advance(1000);
    }
    // The oldest creation was 10 s ago: it leaves the window in 3590 s.
    expect(refusal(admin)).toBe(
      'rate_limited 3590000 at most 10 client creations per admin per hour; retry in 3590 seconds',
    );
    // Part of a second left counts as a whole one.
    clock.advance(3590_000 - 1500);
    expect(refusal(admin)).toMatch(/^rate_limited 2000 /);
    clock.advance(1499);
    expect(refusal(admin)).toMatch(/^rate_limited 1000 /);
    clock.advance(1);
    expect(refusal(admin)).toBe('allowed');
  });

  it('counts each admin on their own', () => {
    for (let i = 0; i < 10; i++) limits.record(admin, `c${i}`);
    expect(refusal({ ...admin, userId: 'another-admin' })).toBe('allowed');
  });
});

describe('clients created through the API per organization', () => {
  it('refuses the 101st at once, without Retry-After, and frees a place when one is deleted', () => {
    expect(MAX_API_CLIENTS_PER_ORGANIZATION).toBe(100);
    for (let n = 0; n < 99; n++) createApiClient(n);
    expect(refusal(admin)).toBe('allowed');
    createApiClient(99);
    expect(refusal(admin)).toBe(
      'too_many_clients undefined the organization already has 100 clients created through the API; delete one first',
    );
    store.clients.markDeleted('api-0', clock.now());
    expect(refusal(admin)).toBe('allowed');
  });
});
