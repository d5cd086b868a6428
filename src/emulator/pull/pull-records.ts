/**
 * The records of other domains pull/ is lent by the composition (app.ts), each through the face
 * of the domain that owns it. Types only.
 */
import type { ConnectorInserter } from '../connectors/connectors-face.js';
import type {
  PrinterInserter,
  PrinterLookup,
  PullPasswordReader,
  PullPasswordSetter,
} from '../printers/printers-face.js';

/**
 * What pull/ uses of connectors/ and printers/, through their faces: the inserts of each
 * organization's queue printer and its built-in connector, the printers devices name, and the
 * password a release station is paired with and the passwords a /TPFM/ device signs in with.
 */
export interface PullPrinterRecords {
  connectors: ConnectorInserter;
  printers: PrinterInserter & PrinterLookup;
  pullPasswords: PullPasswordSetter & PullPasswordReader;
}
