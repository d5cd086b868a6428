/**
 * The demo seed: what `printrelay demo` and `printrelay emulator` (without --seed) put into a
 * fresh emulator database. config/emulator.example.yaml holds the same content, documented
 * field by field; a unit test keeps the two equal.
 */
import type { EmulatorSeed } from './emulator-seed-schema.js';

/** Credentials of the demo, printed by `printrelay demo` and used as `printrelay print` defaults. */
export const DEMO = {
  organization: 'Demo Org',
  admin: { email: 'admin@demo.test', password: 'demo-admin' },
  user: { email: 'alice@demo.test', password: 'demo-alice', card: '04A1B2C3D4' },
  client: { id: 'demo-app', secret: 'demo-secret' },
  printer: { name: 'Demo Printer', pullPrintingPassword: 'demo-device' },
  otherOrganization: 'Other Org',
  otherAdmin: { email: 'admin@other.test', password: 'other-admin' },
  partner: {
    organization: 'Demo Partner',
    admin: { email: 'partner@partner.test', password: 'demo-partner' },
    client: { id: 'partner-app', secret: 'partner-secret' },
  },
} as const;

const ALL_GRANTS: EmulatorSeed['organizations'][number]['oauth_clients'][number]['grant_types'] = [
  'authorization_code',
  'pairing_code',
  'password',
  'refresh_token',
  'client_credentials',
];

/** A fresh copy of the demo seed with every default filled in (callers may change it freely). */
export function defaultEmulatorSeed(): EmulatorSeed {
  return {
    version: 1,
    organizations: [
      {
        name: DEMO.organization,
        users: [
          {
            email: DEMO.admin.email,
            password: DEMO.admin.password,
            first_name: 'Demo',
            last_name: 'Admin',
            roles: ['admin', 'user'],
            pull_printing_enabled: true,
            cards: [],
          },
          {
            email: DEMO.user.email,
            password: DEMO.user.password,
            first_name: 'Alice',
            last_name: 'Example',
            roles: ['user'],
            pull_printing_enabled: true,
            cards: [DEMO.user.card],
          },
        ],
        oauth_clients: [
          {
            client_id: DEMO.client.id,
            client_secret: DEMO.client.secret,
            name: 'Demo App',
            external_description: 'The client of the demo and of `printrelay print`.',
            client_type: 'confidential',
            grant_types: [...ALL_GRANTS],
            redirect_urls: ['http://localhost/callback'],
            allowed_scopes: [],
            tenant_mode: 'single',
            protected: true,
          },
        ],
        printers: [{ name: DEMO.printer.name, pull_printing_password: DEMO.printer.pullPrintingPassword }],
        partner: false,
        manages: [],
      },
      {
        name: DEMO.otherOrganization,
        users: [
          {
            email: DEMO.otherAdmin.email,
            password: DEMO.otherAdmin.password,
            first_name: 'Other',
            last_name: 'Admin',
            roles: ['admin', 'user'],
            pull_printing_enabled: true,
            cards: [],
          },
        ],
        oauth_clients: [],
        printers: [],
        partner: false,
        manages: [],
      },
      {
        name: DEMO.partner.organization,
        users: [
          {
            email: DEMO.partner.admin.email,
            password: DEMO.partner.admin.password,
            first_name: 'Paula',
            last_name: 'Partner',
            roles: ['admin', 'user'],
            pull_printing_enabled: false,
            cards: [],
          },
        ],
        oauth_clients: [
          {
            client_id: DEMO.partner.client.id,
            client_secret: DEMO.partner.client.secret,
            name: 'Partner App',
            external_description: 'The partner tool of the demo: manages Demo Org and Other Org.',
            client_type: 'confidential',
            grant_types: ['password', 'refresh_token', 'client_credentials'],
            redirect_urls: [],
            allowed_scopes: [],
            tenant_mode: 'single',
            protected: false,
          },
        ],
        printers: [],
        partner: true,
        manages: [DEMO.organization, DEMO.otherOrganization],
      },
    ],
  };
}
