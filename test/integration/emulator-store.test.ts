import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '../../src/lib/sqlite.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultEmulatorSeed } from '../../src/config/demo-seed.js';
import { openEmulatorDatabase, runMigrations, schemaVersion } from '../../src/emulator/store/database.js';
import { openEmulatorStore } from '../../src/emulator/emulator-store.js';
import { MIGRATIONS } from '../../src/emulator/store/migrations.js';
import { SecretHasher } from '../../src/emulator/store/secret-hash.js';
import { CredentialGuard } from '../../src/emulator/store/credential-guard.js';
import { UserSignIn } from '../../src/emulator/accounts/user-sign-in.js';
import { ManualClock } from '../../src/lib/clock.js';
import { applySeed } from '../../src/emulator/seed-loader.js';
import { call, DEMO, passwordToken, startHarness } from './emulator-harness.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'emulator-store-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('migrations', () => {
  it('bring an empty file database to the latest version in WAL mode, once', () => {
    const db = openEmulatorDatabase(join(dir, 'e.db'));
    expect(schemaVersion(db)).toBe(MIGRATIONS.at(-1)!.version);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(runMigrations(db, MIGRATIONS)).toEqual([]);
    db.close();
  });

  it('apply only newer migrations and refuse a bad order', () => {
    const db = openEmulatorDatabase(':memory:');
    const extra = [...MIGRATIONS, { version: 99, name: 'extra', sql: 'CREATE TABLE extra (x INTEGER)' }];
    expect(runMigrations(db, extra)).toEqual([99]);
    expect(schemaVersion(db)).toBe(99);
    expect(() => runMigrations(db, [...extra].reverse())).toThrow(/increase strictly/);
    db.close();
  });
});

describe('seed', () => {
  it('fills an empty database only, hashing passwords and secrets', async () => {
    const store = openEmulatorStore(':memory:');
    const clock = new ManualClock();
    const hasher = new SecretHasher(clock);
    expect(await applySeed(store, defaultEmulatorSeed(), 1, hasher)).toBe(true);
    expect(await applySeed(store, defaultEmulatorSeed(), 2, hasher)).toBe(false);
    expect(store.organizations.list().map((o) => o.name)).toEqual([
      DEMO.organization,
      DEMO.partner.organization,
      DEMO.otherOrganization,
    ]);
    const partner = store.organizations.findByName(DEMO.partner.organization)!;
    expect(partner.isPartner).toBe(true);
    expect(store.organizations.findByName(DEMO.organization)!.managedBy).toBe(partner.id);
    expect(store.organizations.findByName(DEMO.otherOrganization)!.managedBy).toBe(partner.id);
    expect(store.clients.findById(DEMO.partner.client.id)?.partnerScoped).toBe(true);
    const row = store.db.prepare('SELECT password_hash FROM users WHERE email = ?').get(DEMO.user.email) as {
      password_hash: string;
    };
    expect(row.password_hash).not.toContain(DEMO.user.password);
    const signIn = new UserSignIn(store, new CredentialGuard(hasher, clock));
    expect((await signIn.verify(DEMO.user.email.toUpperCase(), DEMO.user.password, 'test'))?.email).toBe(
      DEMO.user.email,
    );
    expect(await signIn.verify(DEMO.user.email, 'wrong', 'test')).toBeUndefined();
    const alice = store.users.findByEmail(DEMO.user.email)!;
    expect(store.users.findByCard(alice.organizationId, DEMO.user.card)?.id).toBe(alice.id);
    const client = store.clients.credentials(DEMO.client.id)!;
    expect(client.client.clientId).toBe(DEMO.client.id);
    expect(await hasher.verify(DEMO.client.secret, client.secretHash!)).toBe(true);
    expect(await hasher.verify('x', client.secretHash!)).toBe(false);
    const device = store.db
      .prepare('SELECT pull_printing_password_hash AS h FROM printer_settings WHERE printer_name = ?')
      .get(DEMO.printer.name) as { h: string };
    expect(await hasher.verify(DEMO.printer.pullPrintingPassword, device.h)).toBe(true);
    store.close();
  });

  it('refuses manages on a non-partner or naming an organization the seed lacks, seeding nothing', async () => {
    const hasher = new SecretHasher(new ManualClock());
    const notPartner = defaultEmulatorSeed();
    notPartner.organizations[1]!.manages = [DEMO.organization];
    const store = openEmulatorStore(':memory:');
    await expect(applySeed(store, notPartner, 1, hasher)).rejects.toThrow(
      'seed: organization "Other Org" lists manages but is not a partner',
    );
    const unknown = defaultEmulatorSeed();
    unknown.organizations[2]!.manages = ['Nowhere Org'];
    await expect(applySeed(store, unknown, 1, hasher)).rejects.toThrow(
      'seed: partner "Demo Partner" manages "Nowhere Org", which the seed does not hold',
    );
    expect(store.organizations.count()).toBe(0);
    store.close();
  });

  it('migration 17 gives every existing user a membership of its organization', () => {
    const db = openSqlite(':memory:');
    runMigrations(
      db,
      MIGRATIONS.filter((m) => m.version < 17),
    );
    db.prepare("INSERT INTO organizations (id, name, created_at) VALUES ('o1', 'Old Org', 1)").run();
    db.prepare(
      `INSERT INTO users (id, organization_id, email, password_hash, roles, created_at)
       VALUES ('u1', 'o1', 'old@old.test', 'x', '["admin","user"]', 5)`,
    ).run();
    runMigrations(db, MIGRATIONS);
    expect(db.prepare('SELECT * FROM memberships').all()).toEqual([
      { user_id: 'u1', organization_id: 'o1', roles: '["admin","user"]', created_at: 5 },
    ]);
    db.close();
  });
});

describe('restart', () => {
  it('keeps the signing key and state in a file database: old tokens stay valid', async () => {
    const db = join(dir, 'emulator.db');
    const first = await startHarness({ db, dataDir: dir });
    const token = await passwordToken(first.baseUrl, 'printing printing.connectors');
    const kid = (await call(first.baseUrl, 'GET', '/.well-known/jwks.json', undefined)).body.keys[0].kid;
    await first.close();
    const second = await startHarness({ db, dataDir: dir });
    try {
      const keys = (await call(second.baseUrl, 'GET', '/.well-known/jwks.json', undefined)).body.keys;
      expect(keys.map((k: { kid: string }) => k.kid)).toEqual([kid]);
      expect((await call(second.baseUrl, 'GET', '/printing/v1/printers', token)).status).toBe(200);
      expect(second.emulator.app.emulator.store.organizations.count()).toBe(3);
    } finally {
      await second.close();
    }
  });
});
