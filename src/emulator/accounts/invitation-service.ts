/**
 * Invitations to an organization (/v1/userinvitations/ and the partner's admin invitation):
 * creation mails a link to the outbox, resend (PATCH) mails a fresh link, and the browser page
 * of the link accepts (a new user sets a password; an existing user confirms theirs and gains a
 * membership). State by the injectable clock: OPEN until expire_date, then EXPIRED; ACCEPTED once
 * used. Stateless over the store; nothing to clean up.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import {
  ConflictError,
  type ErrorCode,
  GoneError,
  NotFoundError,
  ValidationError,
} from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type { EmulatorStore } from '../emulator-store.js';
import { hashToken, randomToken } from '../store/secret-hash.js';
import { emailField, futureDateTimeField, objectBody, onlyFields } from './account-rules.js';
import type { Invitation } from './invitation-repo.js';
import type { MailOutbox } from './mail-outbox.js';
import type { MembershipService } from './membership-service.js';
import type { User, UserRole } from './user-repo.js';
import type { UserSignIn } from './user-sign-in.js';

/** invitation_status values. */
export type InvitationStatus = 'OPEN' | 'ACCEPTED' | 'EXPIRED';

/** The error code of an invitation that can no longer be accepted, by its status. */
const CLOSED_INVITATION_CODE = {
  ACCEPTED: 'invitation_accepted',
  EXPIRED: 'invitation_expired',
} as const satisfies Record<Exclude<InvitationStatus, 'OPEN'>, ErrorCode>;

/** Path of the acceptance page; the token travels in the query (request logs keep paths only). */
export const INVITATION_PAGE_PATH = '/accounts/invitation';

/** Who is invited beyond the e-mail address (the partner variant names the person). */
export interface Invitee {
  email: string;
  expireAt: number;
  roles: UserRole[];
  firstName?: string;
  lastName?: string;
  preferredLanguage?: string;
}

/** What the acceptance page shows for a token. */
export interface InvitationView {
  invitation: Invitation;
  organizationName: string;
  /** The account that already uses the invited address, if any. */
  existingUser: User | undefined;
}

/** Input of the acceptance form. */
export interface AcceptanceForm {
  firstName?: string;
  lastName?: string;
  password?: string;
}

/** Minimum length of a password set on the acceptance page. */
export const MIN_PASSWORD_LENGTH = 8;

/** Invitation operations of one emulator. */
export class InvitationService {
  constructor(
    private readonly store: EmulatorStore,
    private readonly memberships: MembershipService,
    private readonly mail: MailOutbox,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly signIn: UserSignIn,
  ) {}

  /** The status at the clock's current time. */
  status(inv: Invitation): InvitationStatus {
    if (inv.acceptedAt !== null) return 'ACCEPTED';
    return this.clock.now() >= inv.expireAt ? 'EXPIRED' : 'OPEN';
  }

  /** The invitation resource of the spec. */
  resource(inv: Invitation): Record<string, unknown> {
    return {
      id: inv.id,
      updated: new Date(inv.updatedAt).toISOString(),
      email: inv.email,
      expire_date: new Date(inv.expireAt).toISOString(),
      delivery_status: 'SENT',
      invitation_status: this.status(inv),
    };
  }

  /** Reads a POST /v1/userinvitations/ body: email and expire_date, both required. */
  parseNew(body: unknown): Invitee {
    const fields = objectBody(body);
    if (fields['email'] === undefined) throw new ValidationError('email', 'is required');
    if (fields['expire_date'] === undefined) throw new ValidationError('expire_date', 'is required');
    return {
      email: emailField(fields['email']),
      expireAt: futureDateTimeField(fields['expire_date'], 'expire_date', this.clock.now()),
      roles: ['user'],
    };
  }

  /** Creates an OPEN invitation and mails its link; 409 when already a member or invited. */
  invite(organizationId: string, invitee: Invitee, baseUrl: string): Invitation {
    const existing = this.store.users.findByEmail(invitee.email);
    if (existing && this.store.memberships.find(existing.id, organizationId))
      throw new ConflictError(
        'email: this address is already a member of the organization',
        'email',
        'already_member',
      );
    if (this.store.invitations.hasOpen(organizationId, invitee.email, this.clock.now()))
      throw new ConflictError(
        'email: an open invitation for this address exists; resend it',
        'email',
        'already_invited',
      );
    const token = randomToken(24);
    const now = this.clock.now();
    const invitation: Invitation = {
      id: randomUUID(),
      organizationId,
      email: invitee.email,
      firstName: invitee.firstName ?? '',
      lastName: invitee.lastName ?? '',
      preferredLanguage: invitee.preferredLanguage ?? 'en',
      roles: invitee.roles,
      tokenHash: hashToken(token),
      expireAt: invitee.expireAt,
      acceptedAt: null,
      userId: existing?.id ?? randomUUID(),
      createdAt: now,
      updatedAt: now,
    };
    this.store.invitations.insert(invitation);
    this.sendLink(invitation, token, baseUrl);
    this.logger.info({ invitation: invitation.id, organization: organizationId }, 'invitation sent');
    return invitation;
  }

  /** One page of the organization's invitations and their count. */
  list(organizationId: string, limit: number, offset: number): { count: number; results: unknown[] } {
    const page = this.store.invitations.list(organizationId, limit, offset);
    return {
      count: this.store.invitations.count(organizationId),
      results: page.map((i) => this.resource(i)),
    };
  }

  /** PATCH: optional email and expire_date, then a fresh link is mailed (the old one stops working). */
  resend(organizationId: string, id: string, body: unknown, baseUrl: string): Invitation {
    const inv = this.store.invitations.find(organizationId, id);
    if (!inv) throw new NotFoundError(`invitation ${id}`);
    const fields = objectBody(body);
    onlyFields(fields, ['email', 'expire_date']);
    if (inv.acceptedAt !== null)
      throw new ConflictError(
        'the invitation was accepted already and cannot be resent',
        'invitation_status',
        'invitation_accepted',
      );
    const email = fields['email'] === undefined ? inv.email : emailField(fields['email']);
    const now = this.clock.now();
    const expireAt =
      fields['expire_date'] === undefined
        ? inv.expireAt
        : futureDateTimeField(fields['expire_date'], 'expire_date', now);
    if (expireAt <= now)
      throw new ValidationError(
        'expire_date',
        'must lie in the future: the invitation expired, send a new expire_date',
      );
    const token = randomToken(24);
    this.store.invitations.resend(inv.id, email, expireAt, hashToken(token), now);
    const updated = this.store.invitations.find(organizationId, id)!;
    this.sendLink(updated, token, baseUrl);
    this.logger.info({ invitation: id }, 'invitation resent');
    return updated;
  }

  /** What the page of a link shows; NotFoundError for an unknown or replaced token. */
  view(token: string): InvitationView {
    const invitation = this.store.invitations.findByTokenHash(hashToken(token));
    if (!invitation) throw new NotFoundError('invitation');
    const org = this.store.organizations.findById(invitation.organizationId)!;
    return {
      invitation,
      organizationName: org.name,
      existingUser: this.store.users.findByEmail(invitation.email),
    };
  }

  /**
   * Accepts an OPEN invitation: a new user is created with the announced id and the password
   * given; an existing user must give their password. GoneError when expired or used.
   */
  async accept(token: string, form: AcceptanceForm, source = 'invitation-page'): Promise<User> {
    const { invitation, existingUser } = this.view(token);
    this.assertOpen(invitation);
    const password = form.password ?? '';
    // The password is checked or hashed off the event loop (UserSignIn), before the transaction.
    let passwordHash: string | undefined;
    if (existingUser) {
      if (!(await this.signIn.verify(existingUser.email, password, source)))
        throw new ValidationError('password', 'does not match the existing account of this address');
    } else {
      this.checkNewUser(invitation, form, password);
      passwordHash = await this.signIn.hashPassword(password);
    }
    return this.store.transaction(() => {
      // Another acceptance may have finished while the password was checked.
      this.assertOpen(this.view(token).invitation);
      const user = existingUser
        ? this.joinExisting(invitation, existingUser)
        : this.createUser(invitation, form, passwordHash!);
      this.store.invitations.markAccepted(invitation.id, user.id, this.clock.now());
      this.logger.info({ invitation: invitation.id, user: user.id }, 'invitation accepted');
      return user;
    });
  }

  private assertOpen(invitation: Invitation): void {
    const status = this.status(invitation);
    if (status !== 'OPEN')
      throw new GoneError(`the invitation is ${status.toLowerCase()}`, CLOSED_INVITATION_CODE[status]);
  }

  private joinExisting(inv: Invitation, user: User): User {
    if (!this.store.memberships.find(user.id, inv.organizationId))
      this.memberships.add(inv.organizationId, user.id, inv.roles);
    return user;
  }

  private checkNewUser(inv: Invitation, form: AcceptanceForm, password: string): void {
    if (password.length < MIN_PASSWORD_LENGTH)
      throw new ValidationError('password', `must have at least ${MIN_PASSWORD_LENGTH} characters`);
    if ((form.firstName ?? inv.firstName).trim() === '')
      throw new ValidationError('first_name', 'must not be empty');
  }

  private createUser(inv: Invitation, form: AcceptanceForm, passwordHash: string): User {
    return this.store.users.create(
      {
        id: inv.userId,
        organizationId: inv.organizationId,
        email: inv.email,
        passwordHash,
        firstName: (form.firstName ?? inv.firstName).trim(),
        lastName: (form.lastName ?? inv.lastName).trim(),
        roles: inv.roles,
        pullPrintingEnabled: true,
        preferredLanguage: inv.preferredLanguage,
      },
      this.clock.now(),
    );
  }

  private sendLink(inv: Invitation, token: string, baseUrl: string): void {
    const org = this.store.organizations.findById(inv.organizationId)!;
    const link = `${baseUrl}${INVITATION_PAGE_PATH}?token=${encodeURIComponent(token)}`;
    this.mail.send({
      to: inv.email,
      subject: `You are invited to ${org.name} on PrintRelay`,
      body:
        `You are invited to join the organization "${org.name}".\n` +
        `Open the link below to accept before ${new Date(inv.expireAt).toISOString()}:\n${link}\n`,
      link,
      organizationId: inv.organizationId,
    });
  }
}
