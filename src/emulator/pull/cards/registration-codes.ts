/**
 * RegistrationCodeService: self-registration of unknown cards. A device that authenticates with
 * a valid pull-printing password and an unknown card number, asking GetCapabilities with a
 * Printer, gets a six-digit code printed on that printer (a real job through JobService, so the
 * printer's connector prints a small PDF). The user signs in to the portal (or calls the API
 * with a bearer token) and claims the code; from then on the card belongs to that user. A code
 * is valid for 24 hours and once; printing again for the same card reuses its open code.
 * One sheet per card per `sheetIntervalMs` (default 10 minutes, by the injected clock): a
 * GetCapabilities for the same unknown card within it prints nothing more.
 * `start()` creates the folder of the generated sheets; nothing to stop (printed sheets are
 * removed by JobService, as they are print-and-delete jobs).
 */
import { createHash, randomInt } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../../../lib/clock.js';
import { ConflictError, NotFoundError } from '../../../lib/errors.js';
import type { Logger } from '../../../log/logger.js';
import { defaultTicket } from '../../../protocol/print-ticket.js';
import { ensurePrivateDir } from '../../store/data-files.js';
import type { CardHolderRecords } from '../../accounts/accounts-face.js';
import type { EmulatorStore } from '../../emulator-store.js';
import type { PrinterRecord } from '../../printers/printers-face.js';
import { type RegistrationCodeRecord, RegistrationCodeRepo } from './registration-code-repo.js';
import type { JobService } from '../../jobs/job-service.js';
import { registrationSheetPdf } from './registration-sheet-pdf.js';

/** How long a printed code can be claimed. */
export const REGISTRATION_CODE_TTL_MS = 24 * 60 * 60 * 1000;
/** Default time between two sheets for one card. */
export const REGISTRATION_SHEET_INTERVAL_MS = 10 * 60 * 1000;
/** The user id recorded on registration-sheet print jobs (no user owns them). */
export const REGISTRATION_JOB_USER = 'pull-printing-registration';
/** Path of the portal page where users claim codes. */
export const CLAIM_PAGE_PATH = '/portal/cards/claim';

/** See the file comment. */
export class RegistrationCodeService {
  private readonly codes: RegistrationCodeRepo;
  private readonly dir: string;

  constructor(
    private readonly store: EmulatorStore,
    private readonly users: CardHolderRecords,
    private readonly jobs: JobService,
    private readonly clock: Clock,
    private readonly logger: Logger,
    dataDir: string,
    private readonly sheetIntervalMs = REGISTRATION_SHEET_INTERVAL_MS,
  ) {
    this.codes = new RegistrationCodeRepo(store.db);
    this.dir = join(dataDir, 'registration-sheets');
  }

  /** Creates the folder of generated sheets. */
  async start(): Promise<void> {
    await ensurePrivateDir(this.dir);
  }

  /**
   * Prints the card's registration code on the printer; returns the code (never log it with the
   * card), or undefined when a sheet for the card was printed within the interval.
   */
  async issue(organizationId: string, cardNumber: string, printer: PrinterRecord, claimAt: string) {
    const now = this.clock.now();
    const record =
      this.codes.openForCard(organizationId, cardNumber, now) ??
      this.newCode(organizationId, cardNumber, printer.id, now);
    if (!this.codes.takeSheet(organizationId, record.code, now, now - this.sheetIntervalMs)) {
      this.logger.info(
        { printer: printer.name },
        'registration sheet not printed: one per card per interval',
      );
      return undefined;
    }
    const pdf = registrationSheetPdf({ code: record.code, claimAt, printerName: printer.name });
    const path = join(this.dir, `${organizationId}-${record.code}-${now}.pdf`);
    await writeFile(path, pdf, { mode: 0o600 });
    const { jobId } = this.jobs.create({
      organizationId,
      userId: REGISTRATION_JOB_USER,
      printerId: printer.id,
      file: {
        path,
        size: pdf.length,
        sha256: createHash('sha256').update(pdf).digest('hex'),
        extension: 'pdf',
        contentType: 'application/pdf',
        name: 'Card registration code',
      },
      ticket: { ...defaultTicket },
      deleteAfterPrint: true,
    });
    this.codes.setPrintJob(organizationId, record.code, jobId);
    this.logger.info({ job: jobId, printer: printer.name }, 'registration code printed');
    return { code: record.code, jobId };
  }

  /** Links the code's card to the user: 404 for an unknown or expired code, 409 when used or the card is taken. */
  claim(user: { id: string; organizationId: string }, rawCode: string): { cardLinked: true } {
    const code = rawCode.replace(/\s+/g, '');
    const record = this.codes.find(user.organizationId, code);
    if (!record || record.expiresAt <= this.clock.now()) throw new NotFoundError('registration code');
    if (record.claimedBy !== null) throw new ConflictError('this registration code was already used', 'code');
    const owner = this.users.findByCard(user.organizationId, record.cardNumber);
    if (owner && owner.id !== user.id)
      throw new ConflictError('the card already belongs to another user', 'code');
    this.store.transaction(() => {
      this.codes.claim(user.organizationId, code, user.id);
      this.users.addCard(user.organizationId, record.cardNumber, user.id, this.clock.now());
    });
    this.logger.info({ user: user.id }, 'card linked by registration code');
    return { cardLinked: true };
  }

  /** A code record (for tests and reports). */
  find(organizationId: string, code: string): RegistrationCodeRecord | undefined {
    return this.codes.find(organizationId, code);
  }

  private newCode(organizationId: string, cardNumber: string, printerId: string, now: number) {
    for (;;) {
      const record: RegistrationCodeRecord = {
        organizationId,
        code: String(randomInt(0, 1_000_000)).padStart(6, '0'),
        cardNumber,
        printerId,
        printJobId: null,
        createdAt: now,
        expiresAt: now + REGISTRATION_CODE_TTL_MS,
        claimedBy: null,
        printedAt: null,
      };
      if (this.codes.insert(record)) return record;
    }
  }
}
