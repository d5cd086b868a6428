/**
 * The device passwords each HTTP connection has proved to /TPFM/: a release station sends the
 * same Basic header on every command over a kept-alive connection (a PrintJob per job), so the
 * password check (the throttle, the password rows, scrypt or its remembered success) runs once
 * per connection and header, not once per request. A proof names the password row it matched
 * and that row's hash at the time; TpfmAuthenticator uses it only while the row still holds
 * that hash, so a changed or removed password (a device unpaired) is refused on the very next
 * request. Keys are HMACs of the header under a key of this instance, never the header itself;
 * a connection keeps at most PROOFS_PER_CONNECTION proofs, and they go with the connection
 * (a WeakMap). Nothing to clean up.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { PullPasswordRow } from '../../printers/printers-face.js';

/** Headers (users, printers named) one connection may have proved at once. */
export const PROOFS_PER_CONNECTION = 16;

/** See the file comment. */
export class ConnectionProofs {
  private readonly key = randomBytes(32);
  private readonly byConnection = new WeakMap<object, Map<string, PullPasswordRow>>();

  /** The key of a header and Printer parameter. */
  keyOf(header: string, printerParam: string | undefined): string {
    return createHmac('sha256', this.key)
      .update(header)
      .update('\0')
      .update(printerParam ?? '')
      .digest('base64');
  }

  /** The row the header proved on this connection, if it did. */
  get(connection: object, key: string): PullPasswordRow | undefined {
    return this.byConnection.get(connection)?.get(key);
  }

  /** Records that the header matched `row` (with the hash it had) on this connection. */
  remember(connection: object, key: string, row: PullPasswordRow): void {
    let proofs = this.byConnection.get(connection);
    if (!proofs) {
      proofs = new Map();
      this.byConnection.set(connection, proofs);
    }
    proofs.delete(key);
    proofs.set(key, row);
    if (proofs.size > PROOFS_PER_CONNECTION) proofs.delete(proofs.keys().next().value as string);
  }

  /** Forgets a proof that no longer holds. */
  forget(connection: object, key: string): void {
    this.byConnection.get(connection)?.delete(key);
  }
}
