/**
 * Applies an EmulatorSeed (config/emulator-seed-schema.ts) to an empty database: organizations,
 * users with their cards, OAuth clients and printer settings. A database that already holds an
 * organization is left as it is, so restarts keep their state. Secrets are hashed first (off the
 * event loop), then everything is written in one transaction.
 */
import type { EmulatorSeed, SeedOrganization } from '../config/emulator-seed-schema.js';
import type { EmulatorStore } from './emulator-store.js';
import type { SecretHasher } from './store/secret-hash.js';

/** The seed's secrets as hashes, in the seed's order. */
interface SeedHashes {
  users: string[];
  clients: (string | null)[];
  printers: (string | null)[];
}

/** Seeds an empty store in one transaction; resolves false (and changes nothing) when not empty. */
export async function applySeed(
  store: EmulatorStore,
  seed: EmulatorSeed,
  now: number,
  hasher: SecretHasher,
): Promise<boolean> {
  if (store.organizations.count() > 0) return false;
  const hashes = await Promise.all(seed.organizations.map((org) => hashSeed(org, hasher)));
  if (store.organizations.count() > 0) return false;
  store.transaction(() => {
    seed.organizations.forEach((org, i) => {
      seedOrganization(store, org, hashes[i]!, now);
    });
    for (const org of seed.organizations) seedManagedOrganizations(store, org);
  });
  return true;
}

async function hashSeed(org: SeedOrganization, hasher: SecretHasher): Promise<SeedHashes> {
  const optional = (secret: string | undefined) =>
    secret === undefined || secret === '' ? null : hasher.hash(secret);
  return {
    users: await Promise.all(org.users.map((u) => hasher.hash(u.password))),
    clients: await Promise.all(org.oauth_clients.map((c) => optional(c.client_secret))),
    printers: await Promise.all(org.printers.map((p) => optional(p.pull_printing_password ?? undefined))),
  };
}

function seedOrganization(
  store: EmulatorStore,
  seed: SeedOrganization,
  hashes: SeedHashes,
  now: number,
): void {
  const org = store.organizations.create(seed.name, now, { isPartner: seed.partner });
  seed.users.forEach((u, i) => {
    const user = store.users.create(
      {
        organizationId: org.id,
        email: u.email,
        passwordHash: hashes.users[i]!,
        firstName: u.first_name,
        lastName: u.last_name,
        roles: u.roles,
        pullPrintingEnabled: u.pull_printing_enabled,
      },
      now,
    );
    for (const card of u.cards) store.users.addCard(org.id, card, user.id, now);
  });
  seed.oauth_clients.forEach((c, i) => {
    store.clients.create(
      {
        clientId: c.client_id,
        organizationId: org.id,
        secretHash: hashes.clients[i]!,
        name: c.name,
        externalDescription: c.external_description,
        clientType: c.client_type,
        grantTypes: c.grant_types,
        redirectUrls: c.redirect_urls,
        allowedScopes: c.allowed_scopes,
        tenantMode: c.tenant_mode,
        protected: c.protected,
        partnerScoped: seed.partner,
      },
      now,
    );
  });
  seed.printers.forEach((p, i) => {
    store.printerSettings.setPullPrintingPasswordHash(org.id, p.name, hashes.printers[i]!);
  });
}

/** Links a partner to the organizations it manages (named in `manages`; each must be in the seed). */
function seedManagedOrganizations(store: EmulatorStore, seed: SeedOrganization): void {
  if (seed.manages.length === 0) return;
  if (!seed.partner) throw new Error(`seed: organization "${seed.name}" lists manages but is not a partner`);
  const partner = store.organizations.findByName(seed.name)!;
  for (const name of seed.manages) {
    const managed = store.organizations.findByName(name);
    if (!managed)
      throw new Error(`seed: partner "${seed.name}" manages "${name}", which the seed does not hold`);
    store.organizations.setManagedBy(managed.id, partner.id);
  }
}
