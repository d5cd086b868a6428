/**
 * The pull-printing services, built once per emulator in the app context (app.ts): the
 * pull-printing queue and its hold hook, device authentication, local (copy) jobs, card
 * registration codes and the running releases. `stop()` of `prints` ends the running releases;
 * app.ts calls it before the server closes.
 */
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../log/logger.js';
import type { FileStore } from '../files/file-store.js';
import type { JobService } from '../jobs/job-service.js';
import type { CardHolderRecords, OrganizationLister } from '../accounts/accounts-face.js';
import type { PullPrinterRecords } from './pull-records.js';
import type { EmulatorStore } from '../emulator-store.js';
import { type LocalJobOutcomeListener, LocalJobService } from './local-jobs/local-job-service.js';
import { PullQueueService } from './held-jobs/pull-queue.js';
import { RegistrationCodeService } from './cards/registration-codes.js';
import { TpfmAuthenticator } from './tpfm/tpfm-auth.js';
import type { CredentialGuard } from '../store/credential-guard.js';
import { TpfmPrintProcesses } from './tpfm/tpfm-print-process.js';

/** The services the /TPFM/ routes, the claim routes and the portal use. */
export interface TpfmServices {
  store: EmulatorStore;
  /** The connectors and printers of other domains pull/ is lent (pull-records.ts). */
  printerRecords: PullPrinterRecords;
  jobs: JobService;
  auth: TpfmAuthenticator;
  queue: PullQueueService;
  localJobs: LocalJobService;
  registration: RegistrationCodeService;
  prints: TpfmPrintProcesses;
  files: FileStore;
}

/** What pull/ uses of accounts/, through its face. */
export interface PullPeople {
  users: CardHolderRecords;
  organizations: OrganizationLister;
}

/** What the pull-printing services are built from. */
export interface PullServiceParts {
  store: EmulatorStore;
  /** The users (card holders) and organizations of accounts/, lent by the composition. */
  people: PullPeople;
  /** The connectors and printers of connectors/ and printers/, lent by the composition. */
  printerRecords: PullPrinterRecords;
  jobs: JobService;
  files: FileStore;
  clock: Clock;
  logger: Logger;
  dataDir: string;
  /** Checks the devices' pull-printing passwords (throttled, off the event loop). */
  credentials: CredentialGuard;
  /** Time between two registration sheets for one card (default 10 minutes). */
  registrationSheetIntervalMs?: number;
  /** Told of local jobs that reached Succeeded or Failed (the webhook publisher). */
  localJobOutcomes?: LocalJobOutcomeListener;
}

/** Builds and starts the pull-printing services: the queue installs its hold hook in `jobs`. */
export async function startPullServices(parts: PullServiceParts): Promise<TpfmServices> {
  const { store, jobs, files, clock, dataDir } = parts;
  const logger = parts.logger.child({ part: 'pull-printing' });
  const queue = new PullQueueService(
    store,
    parts.people.organizations,
    parts.printerRecords,
    jobs,
    clock,
    logger,
  );
  queue.start();
  const registration = new RegistrationCodeService(
    store,
    parts.people.users,
    jobs,
    clock,
    logger,
    dataDir,
    parts.registrationSheetIntervalMs,
  );
  await registration.start();
  return {
    store,
    printerRecords: parts.printerRecords,
    jobs,
    auth: new TpfmAuthenticator(parts.people.users, parts.printerRecords, parts.credentials),
    queue,
    localJobs: new LocalJobService(store, clock, logger, parts.localJobOutcomes),
    registration,
    prints: new TpfmPrintProcesses(jobs, queue, logger),
    files,
  };
}
