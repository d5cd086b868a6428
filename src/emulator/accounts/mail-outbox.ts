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
  /** The organization the mail is about (its admins may read it), or null. */
  organizationId: string | null;
}

/** What a caller asks to send. */
export type OutgoingMail = Omit<Mail, 'id' | 'createdAt'>;

/** Which mails a reader sees: all of them (a loopback developer) or one organization's. */
export interface MailFilter {
  to?: string | undefined;
  organizationId?: string | undefined;
}

interface MailRow {
  id: string;
  recipient: string;
  subject: string;
  body: string;
  link: string | null;
  created_at: number;
  organization_id: string | null;
}

const toMail = (r: MailRow): Mail => ({
  id: r.id,
  to: r.recipient,
  subject: r.subject,
  body: r.body,
  link: r.link,
  createdAt: r.created_at,
  organizationId: r.organization_id,
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
        `INSERT INTO mail_outbox (id, seq, recipient, subject, body, link, created_at, organization_id)
         VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM mail_outbox), ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        stored.id,
        stored.to,
        stored.subject,
        stored.body,
        stored.link,
        stored.createdAt,
        stored.organizationId,
      );
    return stored;
  }

  /** One page of mails, newest first, that match `filter`. */
  list(limit: number, offset: number, filter: MailFilter = {}): Mail[] {
    const { where, params } = whereOf(filter);
    const rows = this.db
      .prepare(`SELECT * FROM mail_outbox ${where} ORDER BY seq DESC LIMIT ? OFFSET ?`)
      .all(...params, limit, offset) as MailRow[];
    return rows.map(toMail);
  }

  /** How many mails match `filter`. */
  count(filter: MailFilter = {}): number {
    const { where, params } = whereOf(filter);
    const row = this.db.prepare(`SELECT COUNT(*) AS n FROM mail_outbox ${where}`).get(...params) as {
      n: number;
    };
    return row.n;
  }
}

function whereOf(filter: MailFilter): { where: string; params: string[] } {
  const clauses: string[] = [];
  const params: string[] = [];
  if (filter.to !== undefined) {
    clauses.push('recipient = ? COLLATE NOCASE');
    params.push(filter.to);
  }
  if (filter.organizationId !== undefined) {
    clauses.push('organization_id = ?');
    params.push(filter.organizationId);
  }
  return { where: clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`, params };
}
