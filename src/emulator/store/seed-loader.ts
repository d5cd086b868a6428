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
  });
  return true;
}

function seedOrganization(store: EmulatorStore, seed: SeedOrganization, now: number): void {
  const org = store.organizations.create(seed.name, now);
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
      },
      now,
    );
  }
  for (const p of seed.printers) {
    store.printerSettings.setPullPrintingPassword(org.id, p.name, p.pull_printing_password ?? null);
  }
}
