/**
 * Builds a ReleaseStation from its configuration entry: the card reader from the registry (with
 * the reader profiles, whose default chain applies when the entry names none), a TpfmClient with
 * the printer's pull-printing password (registered with the Redactor), and the given UI and clock.
 * The station talks through a CardRegistrationClient, so an unknown card gets its registration
 * code printed at the station's printer. The caller starts and stops the station, then closes
 * the returned client.
 */
import type { CardReaderContext } from '../../cardreader/reader-registry.js';
import { defaultCardReaderRegistry, profileForUri } from '../../cardreader/reader-registry.js';
import type { ReaderProfile } from '../../cardreader/reader-profiles.js';
import { TpfmClient } from '../../client/tpfm-client.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../log/logger.js';
import type { Redactor } from '../../log/redaction.js';
import { CardRegistrationClient } from './card-registration.js';
import type { ReleaseStationConfig } from '../../config/release-station-schema.js';
import { ReleaseStation, type StationCopies } from './release-station.js';
import type { ReleaseUi } from './release-ui.js';

/** What building a station needs besides its entry. */
export interface StationFactoryDeps {
  logger: Logger;
  redactor: Redactor;
  clock: Clock;
  ui: ReleaseUi;
  profiles: readonly ReaderProfile[];
  /** Hardware overrides passed to the reader registry (tests). */
  readerOverrides?: Pick<CardReaderContext, 'hidOpen' | 'serialFactory' | 'keyboardInput'>;
  userAgent?: string;
  /** Told about every card read (metrics). */
  onSwipe?: (outcome: 'session' | 'busy' | 'unreadable') => void;
  /** Builds the station's copy accounting (undefined: none configured). */
  copies?: StationCopiesFactory;
  /** PEM of a CA to trust for the pull service besides the system roots (cloud.ca_file). */
  cloudCa?: string;
}

/** Builds copy accounting for a station from its entry, logger and UI. */
export type StationCopiesFactory = (
  config: ReleaseStationConfig,
  logger: Logger,
  ui: ReleaseUi,
) => StationCopies | undefined;

/** A station and the client it owns. */
export interface BuiltStation {
  station: ReleaseStation;
  client: TpfmClient;
}

/** See the file comment. */
export function createReleaseStation(config: ReleaseStationConfig, deps: StationFactoryDeps): BuiltStation {
  deps.redactor.add(config.password);
  const logger = deps.logger.child({ station: config.name, printer: config.printer });
  const profile = profileForUri(config.reader, deps.profiles);
  const reader = defaultCardReaderRegistry().create(config.reader, {
    logger,
    clock: deps.clock,
    profiles: deps.profiles,
    ...deps.readerOverrides,
  });
  const client = new TpfmClient({
    baseUrl: config.pull_url,
    password: config.password,
    userAgent: deps.userAgent ?? 'PrintRelay release station',
    lang: config.lang,
    logger,
    ...(deps.cloudCa ? { ca: deps.cloudCa } : {}),
  });
  const station = new ReleaseStation({
    settings: {
      name: config.name,
      printer: config.printer,
      mode: config.mode,
      transforms: config.transforms ?? profile?.transforms ?? [],
      idleTimeoutMs: config.idle_timeout_s * 1000,
      lang: config.lang,
      parallelReleases: config.parallel_releases,
    },
    reader,
    client: new CardRegistrationClient(client, config.printer),
    clock: deps.clock,
    ui: deps.ui,
    logger,
    redactor: deps.redactor,
    ...(deps.onSwipe ? { onSwipe: deps.onSwipe } : {}),
    copies: deps.copies?.(config, logger, deps.ui),
  });
  return { station, client };
}
