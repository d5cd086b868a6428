/**
 * The Print request of /sfapi/ as a service: the request is validated, the printer must be one
 * the caller may use, the document must be ready (uploaded, or fetched from its fileurl within
 * the wait), and then the job is created. Built once in the app context; nothing to clean up
 * (the URL fetcher it uses is stopped by app.ts).
 */
import { ValidationError, ValidationErrors } from '../../lib/errors.js';
import { documentTypeMismatch, SIGNATURE_BYTES } from '../../protocol/document-checks.js';
import { ignoredPrintFields, parsePrintRequest, type PrintRequest } from '../../protocol/print-request.js';
import { contentTypeForExtension } from '../../protocol/sfapi-configuration.js';
import type { AuthContext } from '../accounts/auth-context.js';
import type { FileStore, StoredFile } from '../files/file-store.js';
import type { UrlFetcher } from '../files/url-fetcher.js';
import type { AssignmentService } from '../groups/assignment-service.js';
import type { JobService, NewJob } from '../jobs/job-service.js';
import type { PrinterService } from '../printers/printer-service.js';

/** The services a Print request reaches. */
export interface PrintServiceParts {
  printers: PrinterService;
  assignments: AssignmentService;
  jobs: JobService;
}

/** Throws the 400 of one broken rule. */
function invalid(field: string, rule: string): never {
  throw new ValidationErrors([new ValidationError(field, rule)]);
}

/** What a Print request ends in: a job, or a URL fetch still running after the wait. */
export type PrintOutcome = (
  | { jobid: string; printerId: string; size: number }
  | { pendingFileId: string }
) & {
  /** Fields of the body nothing reads (docs/print-api.md "Lenient input"). */
  ignored: string[];
};

/** Print requests: validation, the file's readiness (upload or URL fetch), the job. */
export class PrintService {
  constructor(
    private readonly files: FileStore,
    private readonly fetcher: UrlFetcher,
    private readonly parts: PrintServiceParts,
    /** How long Print waits for a URL fetch before answering that it still runs (ms). */
    private readonly waitMs = 1000,
  ) {}

  /**
   * Validates `body` for `caller` and submits the job once its document is ready. `strict`
   * refuses fields nothing reads (400 naming each) instead of ignoring them.
   */
  async submit(caller: AuthContext, body: unknown, strict = false): Promise<PrintOutcome> {
    const ignored = ignoredPrintFields(body);
    if (strict && ignored.length > 0) {
      throw new ValidationErrors(
        ignored.map((f) => new ValidationError(f, 'unknown field (strict mode, Prefer: handling=strict)')),
      );
    }
    const print = parsePrintRequest(body);
    const { organizationId, userId } = caller;
    const printer = this.parts.printers.findById(organizationId, print.printerId);
    if (!printer || !this.parts.assignments.canUse(caller, printer)) {
      invalid('printerid', 'no such printer in your organization');
    }
    let file = await this.sourceFile(print, organizationId, userId);
    if (!file) invalid('fileid', 'no such file; call PrepareUpload and upload first');
    if (file.state === 'fetching') {
      if (!(await this.fetcher.settled(file.fileId, this.waitMs))) {
        return { pendingFileId: file.fileId, ignored };
      }
      // The fetch ended meanwhile: its outcome is in the stored record.
      file = (await this.files.get(file.fileId)) ?? file;
    }
    if (file.state !== 'ready' && file.state !== 'printed') this.notReady(file);
    // A document that is not of its type would print nothing (docs/print-api.md).
    const mismatch = documentTypeMismatch(
      contentTypeForExtension(print.type),
      await this.files.head(file, SIGNATURE_BYTES),
    );
    if (mismatch) invalid('type', `${mismatch}; send the type the document is`);
    // Without printanddelete the file stays and its fileid prints again; with it, never again.
    // One Print takes the file at a time; a racing one sees it consumed.
    if (!this.files.take(file, print.printAndDelete ? 'consumed' : 'printed')) {
      this.notReady({ ...file, state: 'consumed' });
    }
    const { jobId } = await this.parts.jobs.create(this.newJob(print, file, organizationId, userId));
    return { jobid: jobId, printerId: print.printerId, size: file.size, ignored };
  }

  private async sourceFile(print: PrintRequest, organizationId: string, userId: string) {
    if ('fileurl' in print.source) {
      const refused = this.fetcher.refusal(print.source.fileurl);
      if (refused) invalid('fileurl', refused);
      const file = await this.files.create(organizationId, userId, 'fetching');
      this.fetcher.start(file, print.source.fileurl);
      return file;
    }
    const file = await this.files.get(print.source.fileid.toLowerCase());
    return file && file.organizationId === organizationId ? file : undefined;
  }

  private notReady(file: StoredFile): never {
    switch (file.state) {
      case 'failed':
        return invalid('fileurl', file.error ?? 'fetching fileurl failed');
      case 'consumed':
        return invalid('fileid', 'was printed with printanddelete and is deleted; upload the document again');
      default:
        return invalid('fileid', 'must be uploaded to the sasUri before Print');
    }
  }

  private newJob(print: PrintRequest, file: StoredFile, organizationId: string, userId: string): NewJob {
    return {
      organizationId,
      userId,
      printerId: print.printerId,
      file: {
        path: file.path,
        size: file.size,
        sha256: file.sha256,
        extension: print.type,
        contentType: contentTypeForExtension(print.type),
        name: print.alias,
      },
      ticket: print.ticket,
      deleteAfterPrint: print.printAndDelete,
    };
  }
}
