/**
 * Configuration of one release station (a card reader at one printer). The TypeBox schema is
 * part of the agent config's `release_stations` list (agent-schema.ts);
 * `releaseStationDefaults` fills defaults for code that builds a station directly.
 */
import { type Static, Type as T } from '@sinclair/typebox';
import { CopyJobsSchema } from './copy-jobs-schema.js';

/** How a swipe releases jobs. */
export const RELEASE_MODES = ['all', 'choose', 'while-present'] as const;
/** One of RELEASE_MODES. */
export type ReleaseMode = (typeof RELEASE_MODES)[number];

/** Schema of one `release_stations` entry. */
export const ReleaseStationSchema = T.Object(
  {
    name: T.String({ minLength: 1, maxLength: 100, description: 'Name in logs and the terminal.' }),
    reader: T.String({
      pattern: '^(serial|hid|keyboard|socket):',
      description:
        'Card reader URI: serial:///dev/ttyUSB0?baud=9600, hid://0c27:3bfa, keyboard:, socket://127.0.0.1:4711.',
    }),
    printer: T.String({ minLength: 1, description: 'Printer id at the pull service (Printer parameter).' }),
    pull_url: T.String({
      pattern: '^https?://',
      description: 'Origin of the pull service (/TPFM/ is added).',
    }),
    password: T.String({ minLength: 1, description: "The printer's pull-printing password (a secret)." }),
    mode: T.Union(
      RELEASE_MODES.map((m) => T.Literal(m)),
      {
        default: 'all',
        description:
          'all: release every job; choose: pick on the terminal; while-present: until the card leaves.',
      },
    ),
    transforms: T.Optional(
      T.Array(T.String(), {
        description: 'Card-number conversion chain; default: the reader profile chain.',
      }),
    ),
    parallel_releases: T.Integer({
      minimum: 1,
      maximum: 100,
      default: 16,
      description:
        'PrintJobs running at once when releasing all or chosen jobs, each sent once the one before it has started (list order kept); 1: one after another. while-present releases one at a time.',
    }),
    idle_timeout_s: T.Integer({ minimum: 5, maximum: 3600, default: 60, description: 'Idle session end.' }),
    lang: T.String({ default: 'en', pattern: '^[a-z]{2}$', description: 'X-Lang-ID for error texts.' }),
    copy_jobs: T.Optional(CopyJobsSchema),
  },
  { additionalProperties: false },
);

/** One release station as configured. */
export type ReleaseStationConfig = Static<typeof ReleaseStationSchema>;
