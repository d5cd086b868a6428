/**
 * The LocalJobTransport of the agent: each record goes to the pull service of the station that
 * recorded it, through that station's TpfmClient (its pull-printing password, the card holder as
 * user). A record of a station no longer configured fails with a clear error and stays queued.
 * The clients belong to the caller.
 */
import type { TpfmClient } from '../../client/tpfm-client.js';
import { PrintRelayError } from '../../lib/errors.js';
import type { LocalJobTransport } from './local-job-sender.js';

/** Resolves a station name to its client, or undefined. */
export type StationClients = (
  station: string,
) => Pick<TpfmClient, 'createLocalJob' | 'updateLocalJob'> | undefined;

/** See the file comment. */
export function tpfmLocalJobTransport(clients: StationClients): LocalJobTransport {
  const clientOf = (station: string) => {
    const client = clients(station);
    if (!client) {
      throw new PrintRelayError(
        'station_unknown',
        `release station "${station}" is not configured; its copy jobs wait`,
      );
    }
    return client;
  };
  return {
    create: (station, user, params, key) => clientOf(station).createLocalJob(user, params, key),
    update: (station, user, params) => clientOf(station).updateLocalJob(user, params),
  };
}
