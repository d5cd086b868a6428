/**
 * The face of printers/: what other domains may use of its repositories (the printer record and
 * its fields, the insert another domain's built-in printer goes through, and the read of one
 * printer or of an organization's printers, each given by the composition). Other domains import printers/ repositories' types only from here
 * (test/unit/architecture.test.ts). Types only.
 */
import type { PrinterAccessRepo } from './printer-access-repo.js';
import type { PrinterRepo } from './printer-repo.js';
import type { PrinterSettingsRepo } from './printer-settings-repo.js';

export type { PrinterFields, PrinterRecord, PrinterSummary } from './printer-repo.js';
export type { PullPasswordRow } from './printer-settings-repo.js';

/** Inserts a printer row: the one writer of the printers table, lent to pull printing's queue. */
export type PrinterInserter = Pick<PrinterRepo, 'insert'>;

/** Reads a printer by id (webhooks/: the printer an event names). */
export type PrinterReader = Pick<PrinterRepo, 'findById'>;

/** Reads a printer by id and an organization's printers (jobs/: a job's printer, a connector's offers). */
export type OrganizationPrinterReader = Pick<PrinterRepo, 'findById' | 'listByOrganization'>;

/** Finds a printer by id, by name, or by name ignoring case (pull/: the printer a device names). */
export type PrinterLookup = Pick<PrinterRepo, 'findById' | 'findByName' | 'findByNameIgnoringCase'>;

/** Sets or clears a printer's pull-printing password hash (pull/: pairing a release station). */
export type PullPasswordSetter = Pick<PrinterSettingsRepo, 'setPullPrintingPasswordHash'>;

/**
 * Lists every pull printer's password hash, or reads one (pull/: the /TPFM/ device a password
 * identifies, and whether a connection's device still has the password it proved).
 */
export type PullPasswordReader = Pick<PrinterSettingsRepo, 'passwordRows' | 'passwordHash'>;

/** Lists printers as summaries, of one organization or of every one (sandbox/: the console). */
export type PrinterSummaryLister = Pick<PrinterRepo, 'summaries'>;

/** Counts an organization's printers per driver id (drivers/: printers_using_driver). */
export type DriverUsageReader = Pick<PrinterRepo, 'driverUsage'>;

/**
 * Pages an organization's assigned printers and answers the access rule over printers, one query
 * each (groups/: assignments and who may use a printer).
 */
export type PrinterAccessReader = Pick<PrinterAccessRepo, 'pageAssigned' | 'usableIds' | 'usableBy'>;
