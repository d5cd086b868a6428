/**
 * The records jobs/ works on: its own repository and the transaction it writes in, and the
 * printers, connectors and users a job names, read through the faces of printers/, connectors/
 * and accounts/. The composition (app.ts) lends the store under this type, so JobService can
 * call nothing else of another domain.
 */
import type { UserReader } from '../accounts/accounts-face.js';
import type { ConnectorReader } from '../connectors/connectors-face.js';
import type { OrganizationPrinterReader } from '../printers/printers-face.js';
import type { JobRepo } from './job-repo.js';

/** What JobService reads and writes, and the transaction it does it in. */
export interface JobRecords {
  /** Runs `fn` in one transaction of the emulator's database (nested: a savepoint). */
  transaction<T>(fn: () => T): T;
  jobs: JobRepo;
  /** The printer a job goes to, and a connector's organization's printers (its offers). */
  printers: OrganizationPrinterReader;
  /** The connector whose pending offers are asked for. */
  connectors: ConnectorReader;
  /** The user an offer names. */
  users: UserReader;
}
