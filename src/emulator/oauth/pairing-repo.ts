/**
 * Pairing codes of the pairing-code grant (field notes): only a SHA-256 hash of each code is
 * stored, with its client, scopes, polling interval, expiry, the user it was bound to and the
 * person's decision. Borrowing the database handle; the owner of the handle closes it.
 */
import type { EmulatorDatabase } from '../store/database.js';
import { hashToken } from '../store/secret-hash.js';

/** What a person decided on the pairing page. */
export type PairingDecision = 'approved' | 'denied';

/** A stored pairing, found by its code. */
export interface PairingRecord {
  clientId: string;
  scopes: string[];
  intervalS: number;
  createdAt: number;
  expiresAt: number;
  lastPolledAt: number | null;
  userId: string | null;
  decision: PairingDecision | null;
  decidedAt: number | null;
  consumedAt: number | null;
}

interface PairingRow {
  client_id: string;
  scopes: string;
  interval_s: number;
  created_at: number;
  expires_at: number;
  last_polled_at: number | null;
  user_id: string | null;
  decision: string | null;
  decided_at: number | null;
  consumed_at: number | null;
}

function toRecord(r: PairingRow): PairingRecord {
  return {
    clientId: r.client_id,
    scopes: r.scopes === '' ? [] : r.scopes.split(' '),
    intervalS: r.interval_s,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    lastPolledAt: r.last_polled_at,
    userId: r.user_id,
    decision: r.decision as PairingDecision | null,
    decidedAt: r.decided_at,
    consumedAt: r.consumed_at,
  };
}

/** Reads and writes pairings by the hash of their code. */
export class PairingRepo {
  constructor(private readonly db: EmulatorDatabase) {}

  /** Stores a new, undecided pairing. */
  insert(
    code: string,
    input: { clientId: string; scopes: string[]; intervalS: number; createdAt: number; expiresAt: number },
  ): void {
    this.db
      .prepare(
        `INSERT INTO oauth_pairings (code_hash, client_id, scopes, interval_s, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?)`,
      )
      .run(
        hashToken(code),
        input.clientId,
        input.scopes.join(' '),
        input.intervalS,
        input.createdAt,
        input.expiresAt,
      );
  }

  find(code: string): PairingRecord | undefined {
    const row = this.db.prepare('SELECT * FROM oauth_pairings WHERE code_hash = ?').get(hashToken(code)) as
      | PairingRow
      | undefined;
    return row && toRecord(row);
  }

  /** Records a poll; `intervalS` is the (possibly raised) interval from now on. */
  recordPoll(code: string, now: number, intervalS: number): void {
    this.db
      .prepare('UPDATE oauth_pairings SET last_polled_at = ?, interval_s = ? WHERE code_hash = ?')
      .run(now, intervalS, hashToken(code));
  }

  /** Records the decision of an undecided pairing; false when it was already decided. */
  decide(code: string, decision: PairingDecision, userId: string, now: number): boolean {
    const result = this.db
      .prepare(
        `UPDATE oauth_pairings SET decision = ?, user_id = ?, decided_at = ?
         WHERE code_hash = ? AND decision IS NULL`,
      )
      .run(decision, userId, now, hashToken(code));
    return result.changes === 1;
  }

  /** Marks an approved pairing used; false when it was already used (a concurrent poll won). */
  consume(code: string, now: number): boolean {
    const result = this.db
      .prepare('UPDATE oauth_pairings SET consumed_at = ? WHERE code_hash = ? AND consumed_at IS NULL')
      .run(now, hashToken(code));
    return result.changes === 1;
  }
}
