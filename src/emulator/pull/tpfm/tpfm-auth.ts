/**
 * Device and user authentication of /TPFM/: HTTP Basic with the user id (a card number, or a
 * user's id) as user name and a pull printer's pull-printing password as password. The password
 * identifies the device, i.e. the pull printer it stands at (and so the organization); the
 * `Printer` parameter, when it names a pull printer (by name or id), is the only one checked.
 * Checks go through the CredentialGuard (throttled, scrypt off the event loop, successes
 * remembered by the SecretHasher); the printer a password matched last is tried first when no
 * Printer is named. The card number (or user id) of a device that authenticated is looked up
 * through the guard's per-device throttle: an unknown one counts against the device and is
 * answered after the same delay as a wrong password, so neither the answer nor its timing tells
 * an unknown card from a wrong password, and guessing cards locks the device's look-ups.
 * A password proved on an HTTP connection is not checked again on that connection while the
 * printer's stored password is the one it matched (connection-proofs.ts); the card number is
 * looked up on every request. No resources to clean up.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { CardHolderRecords } from '../../accounts/accounts-face.js';
import type { PullPrinterRecords } from '../pull-records.js';
import type { PrinterRecord, PullPasswordRow } from '../../printers/printers-face.js';
import type { CredentialGuard } from '../../store/credential-guard.js';
import type { User } from '../../accounts/accounts-face.js';
import { ConnectionProofs } from './connection-proofs.js';

/** The pull printer a device authenticated as. */
export interface TpfmDevice {
  organizationId: string;
  /** Name of the pull printer whose password matched. */
  printerName: string;
  /** That printer when a connector registered it; undefined before. */
  printer: PrinterRecord | undefined;
}

/** Result of reading the Basic credentials of a request. */
export type TpfmAuthResult =
  | { kind: 'none' }
  | { kind: 'refused'; reason: string }
  | { kind: 'device'; device: TpfmDevice; userName: string; user: User | undefined };

const CACHE_LIMIT = 1000;

/** Parses `Basic base64(user:password)`; undefined when malformed. */
export function parseBasic(header: string | undefined): { user: string; password: string } | undefined {
  const match = header === undefined ? null : /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** See the file comment. */
export class TpfmAuthenticator {
  /** HMAC of a password that matched -> the row it matched (`org/printer`), so it is tried first. */
  private readonly matched = new Map<string, string>();
  private readonly key = randomBytes(32);
  private readonly proofs = new ConnectionProofs();

  constructor(
    private readonly users: CardHolderRecords,
    private readonly printerRecords: PullPrinterRecords,
    private readonly guard: CredentialGuard,
  ) {}

  /**
   * Reads the Authorization header; `printerParam` is the command's Printer parameter, `source`
   * the request's address, `connection` the request's socket (its proofs). Throws
   * TooManyRequestsError while the device or source is throttled.
   */
  async authenticate(
    header: string | undefined,
    printerParam: string | undefined,
    source: string,
    connection?: object,
  ): Promise<TpfmAuthResult> {
    if (header === undefined || header.trim() === '') return { kind: 'none' };
    const basic = parseBasic(header);
    if (!basic) return { kind: 'refused', reason: 'Authorization must be Basic user:password' };
    const proof = connection ? { connection, key: this.proofs.keyOf(header, printerParam) } : undefined;
    let row = proof ? this.stillProved(proof.connection, proof.key, printerParam, basic.password) : undefined;
    if (!row) {
      row = await this.findDevice(basic, printerParam, source);
      if (row && proof) this.proofs.remember(proof.connection, proof.key, row);
    }
    if (!row) return { kind: 'refused', reason: 'the password is no pull printer’s password' };
    const device: TpfmDevice = {
      organizationId: row.organizationId,
      printerName: row.printerName,
      printer: this.printerRecords.printers.findByName(row.organizationId, row.printerName),
    };
    const deviceKey = `device-cards:${rowKey(row)}`;
    await this.guard.beginNameLookup(deviceKey);
    const user = this.findUser(device, basic.user);
    if (!user) await this.guard.nameUnknown(deviceKey);
    return { kind: 'device', device, userName: basic.user, user };
  }

  /** A printer of the device's organization by id or name. */
  printer(device: TpfmDevice, nameOrId: string): PrinterRecord | undefined {
    const byId = this.printerRecords.printers.findById(nameOrId.toLowerCase());
    if (byId?.organizationId === device.organizationId) return byId;
    return this.printerRecords.printers.findByNameIgnoringCase(device.organizationId, nameOrId);
  }

  /**
   * The row a connection proved the header for, while that printer still has the password hash
   * it matched, (with a Printer parameter) the parameter still names it, and the hasher still
   * remembers the match (a proof never outlives that memory, so a full check refreshes it as
   * often as without proofs); else undefined.
   */
  private stillProved(connection: object, key: string, printerParam: string | undefined, password: string) {
    const row = this.proofs.get(connection, key);
    if (!row) return undefined;
    const hash = this.printerRecords.pullPasswords.passwordHash(row.organizationId, row.printerName);
    const named = printerParam === undefined || this.names(row, foldAscii(printerParam.trim()));
    if (hash === row.hash && named && this.guard.hasher.remembers(password, row.hash)) return row;
    this.proofs.forget(connection, key);
    return undefined;
  }

  private findUser(device: TpfmDevice, userName: string): User | undefined {
    const byCard = this.users.findByCard(device.organizationId, userName);
    if (byCard) return byCard;
    const byId = this.users.findById(userName.toLowerCase());
    return byId?.organizationId === device.organizationId ? byId : undefined;
  }

  /**
   * The Printer parameter names a pull printer: only that printer's password is checked
   * (throttled per printer and source). Without one, the printer this password matched before is
   * tried first, then the others, all as one attempt of the source.
   */
  private async findDevice(
    basic: { user: string; password: string },
    printerParam: string | undefined,
    source: string,
  ): Promise<PullPasswordRow | undefined> {
    const rows = this.printerRecords.pullPasswords.passwordRows();
    const wanted = printerParam === undefined ? undefined : foldAscii(printerParam.trim());
    const named = wanted ? rows.filter((r) => this.names(r, wanted)) : [];
    const subject = named.length > 0 ? `device:${wanted}` : `device-user:${basic.user}`;
    await this.guard.begin(subject, source);
    const tag = createHmac('sha256', this.key).update(basic.password).digest('base64');
    const known = this.matched.get(tag);
    const candidates =
      named.length > 0
        ? named
        : [...rows.filter((r) => rowKey(r) === known), ...rows.filter((r) => rowKey(r) !== known)];
    let found: PullPasswordRow | undefined;
    try {
      if (candidates.length === 0) await this.guard.hasher.verifyUnknown(basic.password);
      found = await this.firstMatch(candidates, basic.password);
    } finally {
      await this.guard.finish(subject, source, found !== undefined);
    }
    if (found) this.remember(tag, found);
    return found;
  }

  private names(row: PullPasswordRow, wanted: string): boolean {
    if (foldAscii(row.printerName) === wanted) return true;
    const byId = this.printerRecords.printers.findById(wanted);
    return byId?.name === row.printerName && byId.organizationId === row.organizationId;
  }

  private async firstMatch(rows: PullPasswordRow[], password: string): Promise<PullPasswordRow | undefined> {
    for (const row of rows) if (await this.guard.hasher.verify(password, row.hash)) return row;
    return undefined;
  }

  private remember(tag: string, row: PullPasswordRow): void {
    this.matched.delete(tag);
    this.matched.set(tag, rowKey(row));
    if (this.matched.size > CACHE_LIMIT) this.matched.delete(this.matched.keys().next().value as string);
  }
}

function rowKey(row: PullPasswordRow): string {
  return `${row.organizationId}/${row.printerName}`;
}

/** Lower-cases ASCII letters only, as SQLite's NOCASE does (printer names in /TPFM/). */
function foldAscii(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
}
