/**
 * Route schemas of the connectors: the admin API (/printing/v1/connectors/) and the connector's
 * own HTTP calls (/connector/v1/: register, printer properties, job polling, claim, document,
 * events). The WebSocket channel has no HTTP answer to describe (docs/connector-protocol.md).
 * Pure data.
 */
import { Type as T } from '@sinclair/typebox';
import {
  DateTime,
  type DocumentedRequest,
  NoContent,
  Nullable,
  PageQueryDoc,
  Uuid,
  jsonBody,
  otherContent,
  pageOf,
  queryOf,
  responses,
} from '../http/schemas.js';

const admin = { tags: ['connectors'], security: [{ bearer: [] }] };
const own = { tags: ['connector channel'], security: [{ bearer: [] }] };

/** The connector resource (spec fields; more may follow). */
export const ConnectorSchema = T.Object(
  {
    id: Uuid,
    readable_name: T.String(),
    description: T.String(),
    type: T.String({ description: 'TPHub or Printserver' }),
    tpuid: T.Integer(),
    status: T.String(),
    location: Nullable(T.String()),
    hostname: T.String(),
    internal_ip: Nullable(T.String()),
    external_ip: Nullable(T.String()),
    os_type: T.String(),
    sw_version: T.String(),
    last_seen_online: Nullable(DateTime),
    last_printer_update: Nullable(DateTime),
    organization_id: Uuid,
    management_url: Nullable(T.String()),
    serial_string: T.String(),
    supported_formats: T.String({ description: 'comma-separated: RAW, PDF, EMF, XPS' }),
  },
  { additionalProperties: true },
);

const FilterValues = T.Array(
  T.Object({ field_name: T.String(), values: T.Array(T.String()) }, { additionalProperties: false }),
);

const Document = T.Object(
  {
    url: T.String(),
    size: T.Integer(),
    sha256: T.String(),
    extension: T.String(),
    content_type: T.String(),
    name: T.String(),
  },
  { additionalProperties: true },
);

/** A job as the connector receives it (poll, claim, channel offer). */
const JobOffer = T.Object(
  {
    job_id: Uuid,
    printer_id: Uuid,
    tp_id: T.Integer(),
    document: Document,
    ticket: T.Object({}, { additionalProperties: true, description: 'the print ticket' }),
    user: T.Object({ id: T.String(), email: T.String(), name: T.String() }, { additionalProperties: true }),
    created: DateTime,
  },
  { additionalProperties: true },
);

const EventResults = T.Object(
  {
    results: T.Array(
      T.Object(
        {
          event_id: Nullable(T.String()),
          status: T.Integer(),
          error: T.Optional(T.String()),
          message: T.Optional(T.String()),
          field: T.Optional(T.String()),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const IdParams = T.Object({ id: T.String() });

/** Schemas of the connector admin routes. */
export const connectorAdminSchemas = {
  list: { ...admin, response: responses({ 200: pageOf(ConnectorSchema) }, 400, 401, 403) },
  get: { ...admin, params: IdParams, response: responses({ 200: ConnectorSchema }, 401, 403, 404) },
  filterValues: { ...admin, response: responses({ 200: FilterValues }, 401, 403) },
  delete: { ...admin, params: IdParams, response: responses({ 204: NoContent }, 401, 403, 404) },
};

/** Schemas of the connector's own routes. */
export const connectorJobSchemas = {
  register: {
    ...own,
    response: responses({ 200: ConnectorSchema, 201: ConnectorSchema }, 400, 401, 403, 409),
  },
  properties: { ...own, params: IdParams, response: responses({ 204: NoContent }, 400, 401, 403, 404) },
  poll: {
    ...own,
    response: responses(
      { 200: T.Object({ jobs: T.Array(JobOffer) }, { additionalProperties: false }) },
      400,
      401,
      403,
      404,
    ),
  },
  claim: { ...own, params: IdParams, response: responses({ 200: JobOffer }, 401, 403, 404, 409) },
  document: {
    ...own,
    params: IdParams,
    querystring: T.Object({
      claim: T.Optional(
        T.String({
          description: '1: claim the job for this connector first (protocol 2); 0 or absent: do not',
        }),
      ),
    }),
    response: responses(
      {
        200: otherContent('application/octet-stream', 'the document bytes (its own content type)'),
        206: otherContent('application/octet-stream', 'the requested byte range'),
        416: otherContent('text/plain', 'the range is not satisfiable'),
      },
      401,
      403,
      404,
      409,
      410,
      503,
    ),
  },
  jobEvents: { ...own, params: IdParams, response: responses({ 204: NoContent }, 400, 401, 403, 404, 409) },
  events: { ...own, response: responses({ 200: EventResults }, 400, 401, 403) },
  blobCapabilities: {
    ...own,
    params: IdParams,
    response: responses({ 204: NoContent }, 400, 401, 403, 404),
  },
};

const Text = (max = 255) => T.String({ minLength: 1, maxLength: max });

/** Requests of the connector routes (checked by the services; http/schemas.ts DocumentedRequest). */
export const connectorRequests = {
  list: queryOf({
    ...PageQueryDoc,
    type: T.Optional(T.String({ description: 'TPHub, Printserver... (GetConnectorFilterValues)' })),
    status: T.Optional(T.String({ description: 'ON or OFF (GetConnectorFilterValues)' })),
  }),
  register: jsonBody(
    {
      serial_string: Text(),
      type: T.Union([T.Literal('TPHub'), T.Literal('Printserver')]),
      readable_name: Text(),
      description: T.Optional(T.String({ maxLength: 1024 })),
      hostname: Text(),
      internal_ip: T.Union([T.String(), T.Null()]),
      external_ip: T.Union([T.String(), T.Null()]),
      os_type: T.Union([T.Literal('Linux'), T.Literal('Windows'), T.Literal('Windows CE')]),
      sw_version: Text(64),
      location: T.Optional(T.Union([T.String(), T.Null()])),
      management_url: T.Optional(T.Union([T.String(), T.Null()])),
      supported_formats: T.String({ description: 'comma-separated, e.g. RAW,PDF' }),
    },
    false,
  ),
  properties: jsonBody(
    {
      properties: T.Optional(
        T.Object({}, { additionalProperties: true, description: 'GetPrinterProperties fields' }),
      ),
      blob_capabilities: T.Optional(T.Object({}, { additionalProperties: true })),
    },
    false,
  ),
  claim: {
    body: T.Object({}, { additionalProperties: true, description: 'nothing is read: send {} or no body' }),
  },
  poll: queryOf({
    wait: T.Optional(T.Integer({ minimum: 0, maximum: 120, description: 'long-poll seconds' })),
  }),
  jobEvent: jsonBody(
    {
      event_id: T.String(),
      seq: T.Integer({ minimum: 0 }),
      kind: T.Union(
        [
          'received',
          'downloading',
          'printing',
          'progress',
          'waiting',
          'completed',
          'failed',
          'cancelled',
        ].map((k) => T.Literal(k)),
      ),
      at: T.String({ format: 'date-time' }),
      pages_printed: T.Optional(T.Integer({ minimum: 0 })),
      pages_total: T.Optional(T.Integer({ minimum: 0 })),
      printer_job_id: T.Optional(T.String()),
      error_code: T.Optional(T.Integer()),
      message: T.Optional(T.String()),
    },
    true,
  ),
  events: jsonBody(
    {
      events: T.Array(T.Object({ job_id: T.String(), event: T.Object({}, { additionalProperties: true }) })),
    },
    true,
  ),
} satisfies Record<string, DocumentedRequest>;
