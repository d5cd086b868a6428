/**
 * Route schemas of the printing admin API's printers (/printing/v1/printers/) and their
 * capabilities (blob, simplified, defaults), the driver catalog (/printing/v1/drivers/) and the
 * connector's blob upload. Resources list the spec's fields; more may follow. Pure data.
 */
import { type TSchema, Type as T } from '@sinclair/typebox';
import {
  type DocumentedRequest,
  NoContent,
  Nullable,
  PageQueryDoc,
  Uuid,
  jsonBody,
  pageOf,
  queryOf,
  responses,
} from '../http/schemas.js';

const base = { tags: ['printers'], security: [{ bearer: [] }] };
const drivers = { tags: ['drivers'], security: [{ bearer: [] }] };

/** The printer resource. */
const PrinterSchema = T.Object(
  {
    id: Uuid,
    name: T.String(),
    status: T.String(),
    tp_id: T.Integer(),
    supported_formats: T.Array(T.String()),
    vendor_name: T.String(),
    model_name: T.String(),
    location: T.String(),
    pnp_id: T.String(),
    connector_id: Nullable(Uuid),
    driver_id: Nullable(T.String()),
    manual_driver_id: Nullable(T.String()),
    blob_capabilities: T.Unknown({ description: 'the blob capabilities, or null' }),
    auto_driver_assignment_state: T.String(),
    can_modify_favorite: T.Boolean(),
    is_favorite: T.Boolean(),
  },
  { additionalProperties: true },
);

/** One capability of the blob: the connector's `default` and the admin's `custom` (or null). */
const BlobCapability = T.Object(
  { default: T.Unknown(), custom: T.Unknown({ description: 'null when not overridden' }) },
  { additionalProperties: false },
);
const BlobCapabilities = T.Object(
  {
    colors: BlobCapability,
    trays: BlobCapability,
    options: BlobCapability,
    papers: BlobCapability,
    resolutions: BlobCapability,
  },
  { additionalProperties: true },
);

const SimplifiedCapabilities = T.Object(
  {
    color_supported: T.Boolean(),
    duplex_supported: T.Boolean(),
    trays: T.Array(
      T.Object(
        { index: T.Integer(), name: Nullable(T.String()), original_name: T.String(), enabled: T.Boolean() },
        { additionalProperties: true },
      ),
    ),
  },
  { additionalProperties: true },
);

const Driver = T.Object(
  { id: T.String(), name: T.String(), readable_name: T.String(), vendor: T.String() },
  { additionalProperties: true },
);

const IdParams = T.Object({ id: T.String() });
const CapabilityParams = T.Object({ id: T.String(), name: T.String() });
const read = [401, 403, 404] as const;

/** Schemas of the printer routes. */
export const printerSchemas = {
  create: { ...base, response: responses({ 201: PrinterSchema }, 400, 401, 403, 404, 409) },
  list: { ...base, response: responses({ 200: pageOf(PrinterSchema) }, 400, 401, 403) },
  get: { ...base, params: IdParams, response: responses({ 200: PrinterSchema }, ...read) },
  update: { ...base, params: IdParams, response: responses({ 200: PrinterSchema }, 400, ...read, 409) },
  delete: { ...base, params: IdParams, response: responses({ 204: NoContent }, ...read) },
  blobCapabilities: { ...base, params: IdParams, response: responses({ 200: BlobCapabilities }, ...read) },
  patchBlobCapability: {
    ...base,
    params: CapabilityParams,
    response: responses({ 200: BlobCapability }, 400, ...read),
  },
  capabilities: { ...base, params: IdParams, response: responses({ 200: SimplifiedCapabilities }, ...read) },
  patchCapabilities: {
    ...base,
    params: IdParams,
    response: responses({ 200: SimplifiedCapabilities }, 400, ...read),
  },
};

/** Schemas of the driver catalog routes. */
export const driverSchemas = {
  vendors: { ...drivers, response: responses({ 200: T.Array(T.String()) }, 401, 403) },
  list: { ...drivers, response: responses({ 200: pageOf(Driver) }, 400, 401, 403) },
};

const printerFields = (required: boolean) => {
  const maybe = <S extends TSchema>(s: S) => (required ? s : T.Optional(s));
  return {
    name: maybe(T.String({ minLength: 1, maxLength: 255, description: 'unique in the organization' })),
    status: maybe(
      T.Union([T.Literal('Online'), T.Literal('Offline'), T.Literal('Inproperly Configured')], {
        description: 'the spec’s spelling',
      }),
    ),
    tp_id: T.Optional(T.Integer({ minimum: 1, maximum: 2147483646, description: 'unique per connector' })),
    supported_formats: T.Optional(
      T.Union([T.String(), T.Array(T.String())], { description: 'e.g. RAW,PDF' }),
    ),
    vendor_name: T.Optional(T.String({ maxLength: 255 })),
    model_name: T.Optional(T.String({ maxLength: 255 })),
    location: T.Optional(T.String({ maxLength: 1024 })),
    pnp_id: T.Optional(T.String({ maxLength: 1024 })),
    driver_id: T.Optional(
      T.Union([T.String({ format: 'uuid' }), T.Null()], { description: 'a driver of the catalog' }),
    ),
    ...Object.fromEntries(
      [
        'id',
        'blob_capabilities',
        'auto_driver_assignment_state',
        'can_modify_favorite',
        'is_favorite',
        'manual_driver_id',
      ].map((k) => [
        k,
        T.Optional(T.Unknown({ description: 'read-only: accepted as sent back by GET, never changed' })),
      ]),
    ),
  };
};

/** Requests of the printer routes (checked by the services; http/schemas.ts DocumentedRequest). */
export const printerRequests = {
  create: {
    headers: T.Object({
      'x-host-id': T.String({ format: 'uuid', description: 'the connector the printer belongs to' }),
    }),
    body: T.Object(
      { ...printerFields(true), connector_id: T.Optional(T.String({ format: 'uuid' })) },
      { additionalProperties: false },
    ),
  },
  list: queryOf({
    ...PageQueryDoc,
    connector_id: T.Optional(T.String({ format: 'uuid', description: 'only printers of this connector' })),
  }),
  replace: jsonBody({ ...printerFields(true), connector_id: T.String({ format: 'uuid' }) }, false, {
    description: 'the whole printer; read-only fields of a GET answer may be sent back unchanged',
  }),
  patch: jsonBody(
    { ...printerFields(false), connector_id: T.Optional(T.String({ format: 'uuid' })) },
    false,
    {
      description: 'only the fields to change; read-only fields of a GET answer may be sent back unchanged',
    },
  ),
  patchBlobCapability: jsonBody(
    { custom: T.Unknown({ description: 'the capability’s value in its shape, or null for the default' }) },
    false,
  ),
  patchCapabilities: jsonBody(
    {
      color_supported: T.Optional(T.Boolean()),
      trays: T.Optional(
        T.Array(
          T.Object(
            {
              index: T.Integer(),
              name: T.Optional(
                T.Union([T.String(), T.Null()], { description: 'null: back to the original name' }),
              ),
              enabled: T.Optional(T.Boolean()),
            },
            { additionalProperties: true },
          ),
        ),
      ),
    },
    true,
  ),
  reportBlobCapabilities: {
    body: T.Object(
      {},
      {
        additionalProperties: true,
        description: 'the printer’s default blob capabilities, bare or as {defaults}',
      },
    ),
  },
} satisfies Record<string, DocumentedRequest>;

/** Requests of the driver catalog routes. */
export const driverRequests = {
  list: queryOf({ ...PageQueryDoc, vendor: T.String({ description: 'a vendor of /drivers/vendors' }) }),
} satisfies Record<string, DocumentedRequest>;
