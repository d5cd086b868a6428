/**
 * The emulator's seed file (emulator.yaml): the organizations, people, OAuth clients and
 * printer settings a fresh emulator database starts with. Generated JSON Schema:
 * config/emulator.schema.json. Run-time options (listen address, database) are CLI flags.
 */
import { type Static, Type as T } from '@sinclair/typebox';

const SeedUser = T.Object(
  {
    email: T.String({ format: 'email', description: 'Sign-in name.' }),
    password: T.String({ minLength: 4, description: 'Sign-in password (stored hashed).' }),
    first_name: T.String({ default: '' }),
    last_name: T.String({ default: '' }),
    roles: T.Array(T.Union([T.Literal('admin'), T.Literal('user')]), { default: ['user'], minItems: 1 }),
    pull_printing_enabled: T.Boolean({ default: true }),
    cards: T.Array(T.String({ pattern: '^[0-9A-Za-z]{1,64}$' }), {
      default: [],
      description: 'Card numbers (user ids of the release protocol).',
    }),
  },
  { additionalProperties: false },
);

const SeedClient = T.Object(
  {
    client_id: T.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9._-]+$' }),
    client_secret: T.String({ default: '', description: 'Empty for a public client.' }),
    name: T.String({ minLength: 1 }),
    external_description: T.String({ default: '' }),
    client_type: T.Union([T.Literal('public'), T.Literal('confidential')], { default: 'confidential' }),
    grant_types: T.Array(
      T.Union(
        ['authorization_code', 'pairing_code', 'password', 'refresh_token', 'client_credentials'].map((g) =>
          T.Literal(g),
        ),
      ),
      {
        minItems: 1,
        default: ['authorization_code', 'pairing_code', 'password', 'refresh_token', 'client_credentials'],
      },
    ),
    redirect_urls: T.Array(T.String(), { default: [], maxItems: 20 }),
    allowed_scopes: T.Array(T.String(), { default: [], description: 'Empty: every scope of the service.' }),
    tenant_mode: T.Union([T.Literal('single'), T.Literal('multi'), T.Null()], { default: 'single' }),
    protected: T.Boolean({
      default: true,
      description: 'Created by the service scripts: hidden from the client API.',
    }),
  },
  { additionalProperties: false },
);

const SeedPrinterSetting = T.Object(
  {
    name: T.String({
      minLength: 1,
      maxLength: 255,
      description: 'Printer name as the connector registers it.',
    }),
    pull_printing_password: T.Optional(
      T.String({
        minLength: 4,
        description: 'Makes it a pull printer: the release devices authenticate with this.',
      }),
    ),
  },
  { additionalProperties: false },
);

const SeedOrganization = T.Object(
  {
    name: T.String({ minLength: 1, maxLength: 255 }),
    users: T.Array(SeedUser, { default: [] }),
    oauth_clients: T.Array(SeedClient, { default: [] }),
    printers: T.Array(SeedPrinterSetting, {
      default: [],
      description: 'Settings applied when a connector registers a printer of that name.',
    }),
    partner: T.Boolean({
      default: false,
      description:
        'A partner account: its admins use the partner API; its OAuth clients are partner-scoped (hidden from the client API).',
    }),
    manages: T.Array(T.String({ minLength: 1 }), {
      default: [],
      description: 'Names of the organizations of this seed that this partner manages.',
    }),
  },
  { additionalProperties: false },
);

export const EmulatorSeedSchema = T.Object(
  {
    version: T.Literal(1, { default: 1 }),
    organizations: T.Array(SeedOrganization, { minItems: 1 }),
  },
  { additionalProperties: false },
);

export type EmulatorSeed = Static<typeof EmulatorSeedSchema>;
export type SeedOrganization = Static<typeof SeedOrganization>;
export type SeedUser = Static<typeof SeedUser>;
export type SeedClient = Static<typeof SeedClient>;
