/**
 * Self-registration of unknown cards at a release station. The pull service answers a card it
 * does not know with HTTP 401 on GetJobList; the device protocol's way to get the card a
 * registration code is GetCapabilities with the station's printer, which (with a valid
 * pull-printing password) prints the code on that printer. `CardRegistrationClient` wraps the
 * station's client: on such a 401 it asks GetCapabilities once and, when the service answered
 * with the guest command list (the card really is unknown), ends the session with
 * CardNotRegisteredError telling the person to claim the printed code. A wrong password stays
 * the original 401. Holds no resources; the wrapped client is closed by its owner.
 */
import type { JobListOptions, PrintJobOptions, TpfmJobList } from '../../client/tpfm-client.js';
import type { TpfmCapabilities } from '../../protocol/tpfm-bodies.js';
import { PrintRelayError } from '../../lib/errors.js';
import type { PrintRunLike, ReleaseClient } from './release-session.js';

/** The unknown card got a registration code printed at `printer`; the session shows the message. */
export class CardNotRegisteredError extends PrintRelayError {
  constructor(readonly printer: string) {
    super(
      'card_not_registered',
      `Unknown card: a registration code is being printed on ${printer}. Enter it in the portal, then swipe again.`,
    );
  }
}

/** What the wrapper needs besides the release commands. */
export interface RegisteringClient extends ReleaseClient {
  getCapabilities(user?: string, printer?: string): Promise<TpfmCapabilities>;
}

/** True for the error TpfmClient throws on HTTP 401. */
function isAuthRefusal(error: unknown): boolean {
  return error instanceof PrintRelayError && error.code === 'tpfm_unauthorized';
}

/** See the file comment. */
export class CardRegistrationClient implements ReleaseClient {
  constructor(
    private readonly inner: RegisteringClient,
    private readonly printer: string,
  ) {}

  /** GetJobList; an unknown card triggers the registration code and throws CardNotRegisteredError. */
  async getJobList(user: string, options?: JobListOptions): Promise<TpfmJobList> {
    try {
      return await this.inner.getJobList(user, options);
    } catch (error) {
      if (!isAuthRefusal(error)) throw error;
      const capabilities = await this.inner
        .getCapabilities(user, options?.printer ?? this.printer)
        .catch(() => {
          throw error;
        });
      if (capabilities.commands.includes('GetJobList')) throw error;
      throw new CardNotRegisteredError(options?.printer ?? this.printer);
    }
  }

  /** PrintJob, unchanged. */
  printJob(user: string, options: PrintJobOptions): Promise<PrintRunLike> {
    return this.inner.printJob(user, options);
  }

  /** CancelPrintJob, unchanged. */
  cancelPrintJob(user: string, procId: number): Promise<void> {
    return this.inner.cancelPrintJob(user, procId);
  }

  /** DeleteJob, unchanged. */
  deleteJob(user: string, job: string): Promise<void> {
    return this.inner.deleteJob(user, job);
  }
}
