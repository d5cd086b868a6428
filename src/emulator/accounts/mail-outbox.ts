/**
 * The emulator's mail outbox: invitation and partner e-mails are stored here instead of being
 * sent, and developers read them at GET /_emulator/mail. Nothing ever leaves the process.
 * Borrowing the database handle; the owner of the handle closes it.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import type { EmulatorDatabase } from '../store/database.js';

/** One stored e-mail. */
export interface Mail {
  id: string;
  to: string;
  subject: string;
  body: string;
  /** The link the mail asks the reader to open (the invitation page), or null. */
  link: string | null;
  createdAt: number;
}

/** What a caller asks to send. */
export type OutgoingMail = Omit<Mail, 'id' | 'createdAt'>;

interface MailRow {
  id: string;
  recipient: string;
  subject: string;
  body: string;
  link: string | null;
  created_at: number;
}

const toMail = (r: MailRow): Mail => ({
  id: r.id,
  to: r.recipient,
  subject: r.subject,
  body: r.body,
  link: r.link,
  createdAt: r.created_at,
});

/** Stores and lists mails, newest first. */
export class MailOutbox {
  constructor(
    private readonly db: EmulatorDatabase,
    private readonly clock: Clock,
  ) {}

  /** Stores a mail "sent" now; returns it. */
  send(mail: OutgoingMail): Mail {
    const stored: Mail = { ...mail, id: randomUUID(), createdAt: this.clock.now() };
    this.db
      .prepare(
        `INSERT INTO mail_outbox (id, seq, recipient, subject, body, link, created_at)
         VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM mail_outbox), ?, ?, ?, ?, ?)`,
      )
      .run(stored.id, stored.to, stored.subject, stored.body, stored.link, stored.createdAt);
    return stored;
  }

  /** One page of mails, newest first (optionally only those to `to`). */
  list(limit: number, offset: number, to?: string): Mail[] {
    const where = to === undefined ? '' : 'WHERE recipient = ? COLLATE NOCASE';
    const params: (string | number)[] = to === undefined ? [limit, offset] : [to, limit, offset];
    const rows = this.db
      .prepare(`SELECT * FROM mail_outbox ${where} ORDER BY seq DESC LIMIT ? OFFSET ?`)
      .all(...params) as MailRow[];
    return rows.map(toMail);
  }

  count(to?: string): number {
    const row = (
      to === undefined
        ? this.db.prepare('SELECT COUNT(*) AS n FROM mail_outbox').get()
        : this.db.prepare('SELECT COUNT(*) AS n FROM mail_outbox WHERE recipient = ? COLLATE NOCASE').get(to)
    ) as { n: number };
    return row.n;
  }
}
