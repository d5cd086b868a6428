/**
 * Applies an EmulatorSeed (config/emulator-seed-schema.ts) to an empty database: organizations,
 * users with their cards, OAuth clients and printer settings. A database that already holds an
 * organization is left as it is, so restarts keep their state.
 */
import type { EmulatorSeed, SeedOrganization } from '../../config/emulator-seed-schema.js';
import type { EmulatorStore } from './emulator-store.js';

/** Seeds an empty store in one transaction; returns false (and changes nothing) when not empty. */
export function applySeed(store: EmulatorStore, seed: EmulatorSeed, now: number): boolean {
  if (store.organizations.count() > 0) return false;
  store.transaction(() => {
    for (const org of seed.organizations) seedOrganization(store, org, now);
    for (const org of seed.organizations) seedManagedOrganizations(store, org);
  });
  return true;
}

function seedOrganization(store: EmulatorStore, seed: SeedOrganization, now: number): void {
  const org = store.organizations.create(seed.name, now, { isPartner: seed.partner });
  for (const u of seed.users) {
    const user = store.users.create(
      {
        organizationId: org.id,
        email: u.email,
        password: u.password,
        firstName: u.first_name,
        lastName: u.last_name,
        roles: u.roles,
        pullPrintingEnabled: u.pull_printing_enabled,
      },
      now,
    );
    for (const card of u.cards) store.users.addCard(org.id, card, user.id, now);
  }
  for (const c of seed.oauth_clients) {
    store.clients.create(
      {
        clientId: c.client_id,
        organizationId: org.id,
        secret: c.client_secret,
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
  }
  for (const p of seed.printers) {
    store.printerSettings.setPullPrintingPassword(org.id, p.name, p.pull_printing_password ?? null);
  }
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
