/**
 * Registration codes table: the six-digit codes printed for unknown cards, each bound to the
 * card number and the organization, until a user of that organization claims it or it expires.
 * Borrowing the database handle; the owner of the handle closes it.
 */
import type { EmulatorDatabase } from '../../store/database.js';

/** One issued code. */
export interface RegistrationCodeRecord {
  organizationId: string;
  code: string;
  cardNumber: string;
  printerId: string;
  printJobId: string | null;
  createdAt: number;
  expiresAt: number;
  claimedBy: string | null;
  /** When its sheet was last printed (null: not yet). */
  printedAt: number | null;
}

interface CodeRow {
  organization_id: string;
  code: string;
  card_number: string;
  printer_id: string;
  print_job_id: string | null;
  created_at: number;
  expires_at: number;
  claimed_by: string | null;
  printed_at: number | null;
}

function toRecord(r: CodeRow): RegistrationCodeRecord {
  return {
    organizationId: r.organization_id,
    code: r.code,
    cardNumber: r.card_number,
    printerId: r.printer_id,
    printJobId: r.print_job_id,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    claimedBy: r.claimed_by,
    printedAt: r.printed_at,
  };
}

/** Reads and writes registration codes. */
export class RegistrationCodeRepo {
  constructor(private readonly db: EmulatorDatabase) {}

  /** Inserts a code; false when the code is already taken in the organization. */
  insert(record: RegistrationCodeRecord): boolean {
    const result = this.db
      .prepare(
        `INSERT OR IGNORE INTO registration_codes (organization_id, code, card_number, printer_id, print_job_id,
           created_at, expires_at, claimed_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        record.organizationId,
        record.code,
        record.cardNumber,
        record.printerId,
        record.printJobId,
        record.createdAt,
        record.expiresAt,
        record.claimedBy,
      );
    return result.changes > 0;
  }

  /** A code of the organization. */
  find(organizationId: string, code: string): RegistrationCodeRecord | undefined {
    const row = this.db
      .prepare('SELECT * FROM registration_codes WHERE organization_id = ? AND code = ?')
      .get(organizationId, code) as CodeRow | undefined;
    return row && toRecord(row);
  }

  /** The newest unclaimed, unexpired code of a card. */
  openForCard(organizationId: string, cardNumber: string, now: number): RegistrationCodeRecord | undefined {
    const row = this.db
      .prepare(
        `SELECT * FROM registration_codes WHERE organization_id = ? AND card_number = ? AND claimed_by IS NULL
         AND expires_at > ? ORDER BY created_at DESC LIMIT 1`,
      )
      .get(organizationId, cardNumber, now) as CodeRow | undefined;
    return row && toRecord(row);
  }

  /**
   * Takes the right to print the code's sheet at `now` unless it was printed after `since`;
   * false when it was (one sheet per interval). Atomic, so parallel requests print one sheet.
   */
  takeSheet(organizationId: string, code: string, now: number, since: number): boolean {
    const result = this.db
      .prepare(
        `UPDATE registration_codes SET printed_at = ? WHERE organization_id = ? AND code = ?
           AND (printed_at IS NULL OR printed_at <= ?)`,
      )
      .run(now, organizationId, code, since);
    return result.changes > 0;
  }

  /** Records the print job of a code. */
  setPrintJob(organizationId: string, code: string, jobId: string): void {
    this.db
      .prepare('UPDATE registration_codes SET print_job_id = ? WHERE organization_id = ? AND code = ?')
      .run(jobId, organizationId, code);
  }

  /** Marks a code claimed; false when it was claimed already. */
  claim(organizationId: string, code: string, userId: string): boolean {
    const result = this.db
      .prepare(
        'UPDATE registration_codes SET claimed_by = ? WHERE organization_id = ? AND code = ? AND claimed_by IS NULL',
      )
      .run(userId, organizationId, code);
    return result.changes > 0;
  }
}
