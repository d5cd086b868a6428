/**
 * The face of connectors/: what other domains may use of its repositories (the connector record,
 * the insert another domain's built-in connector goes through, and what printers/ reads and stamps
 * of a connector, each given by the composition).
 * Other domains import connectors/ repositories' types only from here
 * (test/unit/architecture.test.ts). Types only.
 */
import type { ConnectorRepo } from './connector-repo.js';

export type { ConnectorRecord, NewConnector } from './connector-repo.js';

/** Inserts a connector row: the one writer of the connectors table, lent to pull printing's queue. */
export type ConnectorInserter = Pick<ConnectorRepo, 'insert'>;

/** Lists an organization's connectors (partner/: the channels to close when it is deleted). */
export type OrganizationConnectorLister = Pick<ConnectorRepo, 'listByOrganization'>;

/** A connector's record, and the stamp of a change to its printers (printers/). */
export type ConnectorPrinterRecords = Pick<ConnectorRepo, 'findById' | 'touchPrinters'>;

/** Reads a connector by id (webhooks/: the connector an event names). */
export type ConnectorReader = Pick<ConnectorRepo, 'findById'>;

/** Lists connectors, of one organization or of every one, by name (sandbox/: the console). */
export type ConnectorLister = Pick<ConnectorRepo, 'list'>;
