/**
 * Users table (scrypt-hashed passwords, roles) and the cards linked to users. Borrowing the
 * database handle; the owner of the handle closes it.
 */
import { randomUUID } from 'node:crypto';
import type { EmulatorDatabase } from '../store/database.js';

/** Roles of a user. */
export type UserRole = 'admin' | 'user';

/** A stored user (without the password hash). */
export interface User {
  id: string;
  organizationId: string;
  email: string;
  firstName: string;
  lastName: string;
  roles: UserRole[];
  pullPrintingEnabled: boolean;
  /** en or de (partner invitations set it). */
  preferredLanguage: string;
  createdAt: number;
}

/** Input of UserRepo.create. */
export interface NewUser {
  organizationId: string;
  email: string;
  /** The password's scrypt hash (SecretHasher.hash). */
  passwordHash: string;
  firstName: string;
  lastName: string;
  roles: UserRole[];
  pullPrintingEnabled: boolean;
  /** A chosen id (an invitation announces the id of the user it will create); default random. */
  id?: string;
  /** Default en. */
  preferredLanguage?: string;
}

/** Fields of an account user that PATCH may change. */
export interface UserChanges {
  email?: string;
  firstName?: string;
  lastName?: string;
}

interface UserRow {
  id: string;
  organization_id: string;
  email: string;
  password_hash: string;
  first_name: string;
  last_name: string;
  roles: string;
  pull_printing_enabled: number;
  preferred_language: string;
  created_at: number;
}

function toUser(r: UserRow): User {
  return {
    id: r.id,
    organizationId: r.organization_id,
    email: r.email,
    firstName: r.first_name,
    lastName: r.last_name,
    roles: JSON.parse(r.roles) as UserRole[],
    pullPrintingEnabled: r.pull_printing_enabled === 1,
    preferredLanguage: r.preferred_language,
    createdAt: r.created_at,
  };
}

/** Reads and writes users and their cards. */
export class UserRepo {
  constructor(private readonly db: EmulatorDatabase) {}

  /** Inserts a user (and its membership of its home organization) with an already hashed password. */
  create(input: NewUser, now: number): User {
    const id = input.id ?? randomUUID();
    this.db
      .prepare(
        `INSERT INTO users (id, organization_id, email, password_hash, first_name, last_name, roles,
           pull_printing_enabled, created_at, preferred_language) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        input.organizationId,
        input.email,
        input.passwordHash,
        input.firstName,
        input.lastName,
        JSON.stringify(input.roles),
        input.pullPrintingEnabled ? 1 : 0,
        now,
        input.preferredLanguage ?? 'en',
      );
    this.db
      .prepare('INSERT INTO memberships (user_id, organization_id, roles, created_at) VALUES (?, ?, ?, ?)')
      .run(id, input.organizationId, JSON.stringify(input.roles), now);
    return this.findById(id)!;
  }

  /** Changes e-mail and names (only the fields given). */
  update(id: string, changes: UserChanges): void {
    const columns: [string, string | undefined][] = [
      ['email', changes.email],
      ['first_name', changes.firstName],
      ['last_name', changes.lastName],
    ];
    for (const [column, value] of columns) {
      if (value !== undefined) this.db.prepare(`UPDATE users SET ${column} = ? WHERE id = ?`).run(value, id);
    }
  }

  /** Sets the roles of the user's home organization (kept equal to that membership's roles). */
  setHomeRoles(id: string, roles: UserRole[]): void {
    this.db.prepare('UPDATE users SET roles = ? WHERE id = ?').run(JSON.stringify(roles), id);
  }

  /** Moves the user's home to another organization it is a member of, with its roles there. */
  setHome(id: string, organizationId: string, roles: UserRole[]): void {
    this.db
      .prepare('UPDATE users SET organization_id = ?, roles = ? WHERE id = ?')
      .run(organizationId, JSON.stringify(roles), id);
  }

  /** Deletes the user; its memberships, cards and group memberships go with it. */
  delete(id: string): void {
    this.db.prepare('DELETE FROM users WHERE id = ?').run(id);
  }

  findById(id: string): User | undefined {
    const row = this.db.prepare('SELECT * FROM users WHERE id = ?').get(id) as UserRow | undefined;
    return row && toUser(row);
  }

  /** Finds by e-mail, ignoring letter case. */
  findByEmail(email: string): User | undefined {
    const row = this.db.prepare('SELECT * FROM users WHERE email = ?').get(email) as UserRow | undefined;
    return row && toUser(row);
  }

  listByOrganization(organizationId: string): User[] {
    const rows = this.db
      .prepare('SELECT * FROM users WHERE organization_id = ? ORDER BY created_at, email')
      .all(organizationId) as UserRow[];
    return rows.map(toUser);
  }

  /** The user of `email` (any case) with the stored password hash, for the sign-in check. */
  credentials(email: string): { user: User; passwordHash: string } | undefined {
    const row = this.db.prepare('SELECT * FROM users WHERE email = ?').get(email) as UserRow | undefined;
    return row && { user: toUser(row), passwordHash: row.password_hash };
  }

  /** Links a card number to a user of the same organization (replacing an earlier link). */
  addCard(organizationId: string, cardNumber: string, userId: string, now: number): void {
    this.db
      .prepare(
        `INSERT INTO user_cards (organization_id, card_number, user_id, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (organization_id, card_number) DO UPDATE SET user_id = excluded.user_id`,
      )
      .run(organizationId, cardNumber, userId, now);
  }

  /** The user a card belongs to in an organization. */
  findByCard(organizationId: string, cardNumber: string): User | undefined {
    const row = this.db
      .prepare(
        `SELECT u.* FROM users u JOIN user_cards c ON c.user_id = u.id
         WHERE c.organization_id = ? AND c.card_number = ?`,
      )
      .get(organizationId, cardNumber) as UserRow | undefined;
    return row && toUser(row);
  }

  /** The card numbers of a user. */
  cards(userId: string): string[] {
    const rows = this.db
      .prepare('SELECT card_number FROM user_cards WHERE user_id = ? ORDER BY created_at')
      .all(userId) as { card_number: string }[];
    return rows.map((r) => r.card_number);
  }
}
