/**
 * Device and user authentication of /TPFM/: HTTP Basic with the user id (a card number, or a
 * user's id) as user name and a pull printer's pull-printing password as password. The password
 * identifies the device, i.e. the pull printer it stands at (and so the organization); the
 * `Printer` parameter, when it names a pull printer (by name or id), is tried first. Password
 * checks are scrypt; verified (hash, password) pairs are remembered by digest so a busy device
 * does not pay scrypt on every command. No resources to clean up.
 */
import { createHash } from 'node:crypto';
import type { EmulatorStore } from '../store/emulator-store.js';
import type { PrinterRecord } from '../printers/printer-repo.js';
import { PullPrinterRepo, type PullPasswordRow } from './pull-printer-repo.js';
import { verifySecret } from '../store/secret-hash.js';
import type { User } from '../accounts/user-repo.js';

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
  private readonly pull: PullPrinterRepo;
  private readonly verified = new Set<string>();

  constructor(private readonly store: EmulatorStore) {
    this.pull = new PullPrinterRepo(store.db);
  }

  /** Reads the Authorization header; `printerParam` is the command's Printer parameter. */
  authenticate(header: string | undefined, printerParam: string | undefined): TpfmAuthResult {
    if (header === undefined || header.trim() === '') return { kind: 'none' };
    const basic = parseBasic(header);
    if (!basic) return { kind: 'refused', reason: 'Authorization must be Basic user:password' };
    const row = this.findDevice(basic.password, printerParam);
    if (!row) return { kind: 'refused', reason: 'the password is no pull printer’s password' };
    const device: TpfmDevice = {
      organizationId: row.organizationId,
      printerName: row.printerName,
      printer: this.store.printers.findByName(row.organizationId, row.printerName),
    };
    return { kind: 'device', device, userName: basic.user, user: this.findUser(device, basic.user) };
  }

  /** A printer of the device's organization by id or name. */
  printer(device: TpfmDevice, nameOrId: string): PrinterRecord | undefined {
    const byId = this.store.printers.findById(nameOrId.toLowerCase());
    if (byId?.organizationId === device.organizationId) return byId;
    return this.store.printers.findByName(device.organizationId, nameOrId);
  }

  private findUser(device: TpfmDevice, userName: string): User | undefined {
    const byCard = this.store.users.findByCard(device.organizationId, userName);
    if (byCard) return byCard;
    const byId = this.store.users.findById(userName.toLowerCase());
    return byId?.organizationId === device.organizationId ? byId : undefined;
  }

  private findDevice(password: string, printerParam: string | undefined): PullPasswordRow | undefined {
    const rows = this.pull.passwordRows();
    const wanted = printerParam?.trim().toLowerCase();
    const named = wanted
      ? rows.filter((r) => {
          if (r.printerName.toLowerCase() === wanted) return true;
          return this.store.printers.findById(wanted)?.name === r.printerName;
        })
      : [];
    const ordered = [...named, ...rows.filter((r) => !named.includes(r))];
    return ordered.find((r) => this.matches(r.hash, password));
  }

  private matches(hash: string, password: string): boolean {
    const key = createHash('sha256').update(hash).update('\0').update(password).digest('base64');
    if (this.verified.has(key)) return true;
    if (!verifySecret(password, hash)) return false;
    if (this.verified.size >= CACHE_LIMIT) this.verified.clear();
    this.verified.add(key);
    return true;
  }
}
