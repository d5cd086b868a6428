/**
 * The agent's configuration file (agent.yaml): one schema with types and defaults (rules across
 * fields: agent-rules.ts). The JSON Schema in config/agent.schema.json (npm run schemas) and the
 * validator in generated/ (npm run validators) are generated from it.
 */
import { type Static, Type as T } from '@sinclair/typebox';
import { CopyEventsSchema } from './copy-jobs-schema.js';
import { ReleaseStationSchema } from './release-station-schema.js';

const PrinterEntry = T.Object(
  {
    name: T.String({ minLength: 1, maxLength: 255, description: 'Printer name shown in the cloud; unique.' }),
    uri: T.String({
      pattern: '^(ipps?|virtual|cups|winspool)://',
      description:
        'Where the printer is: ipp://host:631/ipp/print, ipps://..., virtual://name (built-in), cups://queue, winspool://name.',
    }),
    location: T.Optional(T.String({ maxLength: 255, description: 'Free-text location shown to users.' })),
    enabled: T.Boolean({
      default: true,
      description: 'false keeps the entry but neither registers nor prints.',
    }),
  },
  { additionalProperties: false },
);

export const AgentConfigSchema = T.Object(
  {
    version: T.Literal(1, { default: 1, description: 'Version of this file format.' }),
    cloud: T.Object(
      {
        url: T.String({
          format: 'uri',
          pattern: '^https?://',
          description: 'Base URL of the cloud print service (or the emulator).',
        }),
        client_id: T.String({ minLength: 1, description: 'OAuth client the connector authenticates with.' }),
        client_secret: T.String({
          default: '',
          description: 'Secret of that client; empty for public clients.',
        }),
        username: T.Optional(
          T.String({ description: 'Account for the password grant; omit after `printrelay agent pair`.' }),
        ),
        password: T.Optional(T.String({ description: 'Password of that account.' })),
        channel: T.Union([T.Literal('websocket'), T.Literal('poll')], {
          default: 'websocket',
          description: 'How jobs arrive: websocket (REST poll while it is down) or poll only.',
        }),
        poll_interval_s: T.Integer({
          minimum: 1,
          maximum: 300,
          default: 25,
          description: 'Long-poll wait in seconds.',
        }),
        request_timeout_s: T.Integer({
          minimum: 1,
          maximum: 600,
          default: 30,
          description: 'Timeout of one cloud request.',
        }),
        ca_file: T.Optional(
          T.String({
            minLength: 1,
            description:
              "PEM file of a CA to trust for the cloud besides the system roots (a private CA, the emulator's self-signed certificate); used by every connection to the cloud.",
          }),
        ),
      },
      { additionalProperties: false },
    ),
    connector: T.Object(
      {
        type: T.Union([T.Literal('TPHub'), T.Literal('Printserver')], {
          default: 'Printserver',
          description: 'Connector type registered in the cloud.',
        }),
        name: T.Optional(
          T.String({ minLength: 1, maxLength: 255, description: 'Readable name; default: the host name.' }),
        ),
        description: T.String({ default: '', maxLength: 1000 }),
        location: T.Optional(T.String({ maxLength: 255 })),
        serial: T.Optional(
          T.String({
            minLength: 1,
            maxLength: 255,
            description:
              'Override of the stable serial (default: generated once, kept in the data directory).',
          }),
        ),
      },
      { additionalProperties: false, default: {} },
    ),
    data_dir: T.Optional(
      T.String({
        minLength: 1,
        description:
          'State directory; default /var/lib/printrelay (Linux), %ProgramData%\\PrintRelay (Windows).',
      }),
    ),
    log: T.Object(
      {
        level: T.Union(
          ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'].map((l) => T.Literal(l)),
          { default: 'info' },
        ),
        pretty: T.Optional(
          T.Boolean({ description: 'Human-readable lines; default when stdout is a terminal.' }),
        ),
      },
      { additionalProperties: false, default: {} },
    ),
    control: T.Object(
      {
        enabled: T.Boolean({
          default: true,
          description: 'Serve the local control API (/healthz, /readyz, /metrics, /status).',
        }),
        bind: T.String({
          default: '127.0.0.1',
          pattern: '^([A-Za-z0-9.-]+|[0-9A-Fa-f:.]+)$',
          description:
            'Address the control API listens on; loopback by default. Anything else exposes job and printer names to that network.',
        }),
        port: T.Integer({
          minimum: 0,
          maximum: 65_535,
          default: 9631,
          description: 'TCP port of the control API (0: any free port, logged at start).',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    jobs: T.Object(
      {
        retry_initial_ms: T.Integer({
          minimum: 10,
          maximum: 600_000,
          default: 1000,
          description: 'First retry delay when a printer is busy or unreachable.',
        }),
        retry_max_ms: T.Integer({
          minimum: 100,
          maximum: 3_600_000,
          default: 60_000,
          description: 'Longest retry delay.',
        }),
        give_up_after_s: T.Integer({
          minimum: 60,
          maximum: 604_800,
          default: 86_400,
          description: 'A job whose printer stays unreachable this long fails with 3011.',
        }),
        download_attempts: T.Integer({
          minimum: 1,
          maximum: 1000,
          default: 10,
          description:
            "A job whose document cannot be downloaded (network error, checksum mismatch) this many times fails with 3011 and the reason; while it waits for the next try, the printer's other jobs go ahead.",
        }),
        status_poll_ms: T.Integer({
          minimum: 5,
          maximum: 60_000,
          default: 500,
          description:
            'Longest interval between checks of a submitted job at the printer (checks start faster).',
        }),
        event_linger_ms: T.Optional(
          T.Integer({
            minimum: 0,
            maximum: 10_000,
            description:
              'How long job events that are not final wait for company before their batch goes to the cloud (default 100).',
          }),
        ),
        final_event_linger_ms: T.Optional(
          T.Integer({
            minimum: 0,
            maximum: 1000,
            description:
              "How long a job's final event (completed, failed, cancelled) waits for other final events to share its batch (default 20); the app and the user see the job end that much later.",
          }),
        ),
      },
      { additionalProperties: false, default: {} },
    ),
    discovery: T.Object(
      {
        cups: T.Boolean({ default: false, description: 'Register the queues of the CUPS server.' }),
        cups_server: T.Optional(
          T.String({
            pattern: '^([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\])(:[0-9]{1,5})?$',
            description: 'CUPS server as HOST or HOST:PORT; default: CUPS_SERVER, else localhost:631.',
          }),
        ),
        winspool: T.Boolean({ default: false, description: 'Register the printers of the Windows spooler.' }),
        dnssd: T.Boolean({
          default: false,
          description: 'Register IPP printers announced on the LAN (DNS-SD).',
        }),
        interval_s: T.Integer({
          minimum: 10,
          maximum: 86_400,
          default: 300,
          description: 'How often discovery runs, in seconds (each run is followed by a printer sync).',
        }),
        allow: T.Array(T.String({ minLength: 1 }), {
          default: [],
          description:
            'Glob patterns (* and ?) on name or URI; when not empty only matching printers are kept.',
        }),
        deny: T.Array(T.String({ minLength: 1 }), {
          default: [],
          description: 'Glob patterns (* and ?) on name or URI; matching printers are never registered.',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    sync: T.Object(
      {
        interval_s: T.Integer({
          minimum: 5,
          maximum: 86_400,
          default: 60,
          description: 'How often printer state and capabilities are compared with the cloud, in seconds.',
        }),
        grace_period_h: T.Number({
          minimum: 0,
          maximum: 8760,
          default: 24,
          description: 'A printer missing locally is deleted in the cloud only after this many hours.',
        }),
        max_delete_share: T.Number({
          minimum: 0,
          maximum: 1,
          default: 0.25,
          description:
            'Largest share of all printers deleted in one run (at least one); never a mass delete.',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    printers: T.Array(PrinterEntry, {
      default: [],
      description: 'Printers this connector registers and prints to.',
    }),
    release_stations: T.Array(ReleaseStationSchema, {
      default: [],
      description:
        'Card readers at pull printers: a swipe releases the held jobs of the card holder through the pull service (/TPFM/).',
    }),
    copy_events: T.Optional(CopyEventsSchema),
  },
  { additionalProperties: false },
);

export type AgentConfig = Static<typeof AgentConfigSchema>;
export type AgentPrinterConfig = Static<typeof PrinterEntry>;
/** One `release_stations` entry. */
export type AgentReleaseStationConfig = AgentConfig['release_stations'][number];
export type AgentDiscoveryConfig = AgentConfig['discovery'];
export type AgentSyncConfig = AgentConfig['sync'];
export type AgentControlConfig = AgentConfig['control'];
