/**
 * Configuration of copy-job accounting at one release station (`copy_jobs` of a
 * `release_stations` entry): which count sources to use, in which order, and their settings.
 * The schema gives types and defaults; the rules that span fields (a listed source needs its
 * settings, SNMPv3 needs a user) are in copy-jobs-rules.ts.
 */
import { type Static, Type as T } from '@sinclair/typebox';

/** Where the pages of a copy session are counted, tried in the configured order. */
export const COPY_SOURCES = ['snmp', 'ipp', 'http'] as const;
/** One of COPY_SOURCES. */
export type CopySource = (typeof COPY_SOURCES)[number];

const OidPattern = '^\\.?1(\\.\\d+)+$';

/** SNMP settings (Printer-MIB counters). */
export const SnmpSourceSchema = T.Object(
  {
    host: T.String({ minLength: 1, description: 'Host name or address of the device.' }),
    port: T.Integer({ minimum: 1, maximum: 65535, default: 161, description: 'UDP port of its SNMP agent.' }),
    version: T.Union([T.Literal('1'), T.Literal('2c'), T.Literal('3')], {
      default: '2c',
      description: 'SNMP version: 1, 2c or 3.',
    }),
    community: T.String({ default: 'public', description: 'Community of v1/v2c (a secret).' }),
    user: T.Optional(T.String({ minLength: 1, description: 'SNMPv3 user name.' })),
    security_level: T.Union([T.Literal('noAuthNoPriv'), T.Literal('authNoPriv'), T.Literal('authPriv')], {
      default: 'authPriv',
      description: 'SNMPv3 security level.',
    }),
    auth_protocol: T.Union([T.Literal('md5'), T.Literal('sha'), T.Literal('sha256'), T.Literal('sha512')], {
      default: 'sha',
      description: 'SNMPv3 authentication protocol.',
    }),
    auth_key: T.Optional(
      T.String({ minLength: 8, description: 'SNMPv3 authentication pass phrase (a secret).' }),
    ),
    priv_protocol: T.Union([T.Literal('des'), T.Literal('aes'), T.Literal('aes256b'), T.Literal('aes256r')], {
      default: 'aes',
      description: 'SNMPv3 privacy protocol.',
    }),
    priv_key: T.Optional(T.String({ minLength: 8, description: 'SNMPv3 privacy pass phrase (a secret).' })),
    total_oid: T.String({
      pattern: OidPattern,
      default: '1.3.6.1.2.1.43.10.2.1.4.1.1',
      description: 'Impressions counter: prtMarkerLifeCount of device 1, marker 1.',
    }),
    color_oid: T.Optional(
      T.String({ pattern: OidPattern, description: 'Colour impressions counter, where the device has one.' }),
    ),
    duplex_oid: T.Optional(
      T.String({ pattern: OidPattern, description: 'Two-sided sheets counter, where the device has one.' }),
    ),
    sheets_oid: T.Optional(
      T.String({ pattern: OidPattern, description: 'Sheets counter, where the device has one.' }),
    ),
    timeout_ms: T.Integer({
      minimum: 100,
      maximum: 60_000,
      default: 2000,
      description: 'Timeout of one request.',
    }),
  },
  { additionalProperties: false },
);

/** `copy_jobs` of one release station. */
export const CopyJobsSchema = T.Object(
  {
    sources: T.Array(T.Union(COPY_SOURCES.map((s) => T.Literal(s))), {
      minItems: 1,
      uniqueItems: true,
      description:
        'Count sources in the order they are tried (snmp, ipp, http); the first that answers counts.',
    }),
    snmp: T.Optional(SnmpSourceSchema),
    ipp_uri: T.Optional(T.String({ pattern: '^ipps?://', description: 'Printer URI for IPP counters.' })),
    poll_interval_s: T.Integer({
      minimum: 1,
      maximum: 300,
      default: 5,
      description: 'How often counters are read while a session runs.',
    }),
    session_timeout_s: T.Integer({
      minimum: 10,
      maximum: 86_400,
      default: 180,
      description: 'A session without card removal ends after this long without new pages.',
    }),
    paper_id: T.Integer({
      minimum: 1,
      maximum: 32767,
      default: 9,
      description: 'PaperId recorded for copies (9 = A4, 1 = Letter).',
    }),
  },
  {
    additionalProperties: false,
    description: 'Copy-job accounting: what the device produced in a card session besides released jobs.',
  },
);

/** The agent's endpoint for copy events of embedded device apps (top-level `copy_events`). */
export const CopyEventsSchema = T.Object(
  {
    host: T.String({ minLength: 1, default: '127.0.0.1', description: 'Address the endpoint listens on.' }),
    port: T.Integer({ minimum: 0, maximum: 65535, description: 'TCP port (0: any free port).' }),
    max_failures: T.Integer({
      minimum: 1,
      maximum: 1000,
      default: 5,
      description: 'Failed authentications per client address before it is locked out.',
    }),
    lockout_s: T.Integer({
      minimum: 1,
      maximum: 86_400,
      default: 60,
      description: 'How long a lockout lasts.',
    }),
  },
  { additionalProperties: false },
);

/** The copy-events endpoint as configured. */
export type CopyEventsConfig = Static<typeof CopyEventsSchema>;

/** One station's copy-job settings as configured. */
export type CopyJobsConfig = Static<typeof CopyJobsSchema>;
/** SNMP settings as configured. */
export type SnmpSourceConfig = Static<typeof SnmpSourceSchema>;
