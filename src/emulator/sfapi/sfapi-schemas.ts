/**
 * Route schemas of the print submission API (/sfapi/): the answers the spec gives (GetPrinter,
 * GetPrinterProperties, PrepareUpload, Print, Status) and GetConfiguration, with the shared error
 * body for 400/401/403/404 and the 412 of a URL fetch still running. They shape the OpenAPI
 * document; responses are serialized as they are (see http/openapi.ts). Pure data.
 */
import { Type as T } from '@sinclair/typebox';
import { type DocumentedRequest, responses } from '../http/schemas.js';
import { PrintRequestBody } from './print-request-schema.js';

const base = { tags: ['sfapi'], security: [{ bearer: [] }] };

const PaperFormat = T.Object(
  { Id: T.Integer(), Name: T.String(), XRes: T.Integer(), YRes: T.Integer(), Default: T.Boolean() },
  { additionalProperties: false },
);
const Tray = T.Object(
  { Index: T.Integer(), Name: T.String(), Default: T.Boolean() },
  { additionalProperties: false },
);
const Defaults = T.Object(
  {
    Duplex: T.String(),
    DuplexIndex: T.Integer(),
    Color: T.String(),
    Orientation: T.Union([T.String(), T.Null()]),
    OrientationIndex: T.Union([T.Integer(), T.Null()]),
    Resolution: T.String(),
    Paper: T.String(),
    PaperId: T.Integer(),
    Tray: T.String(),
    TrayIndex: T.Integer(),
  },
  { additionalProperties: false },
);

/** One element of GetPrinterProperties (the spec's keys; a connector may report more). */
export const PrinterPropertiesSchema = T.Object(
  {
    Id: T.String({ format: 'uuid' }),
    Name: T.String(),
    Location: T.String(),
    TPUID: T.Integer(),
    Driver: T.String(),
    Collate: T.Boolean(),
    Color: T.Boolean(),
    ColorSupported: T.Boolean(),
    DuplexSupported: T.Boolean(),
    DuplexMode: T.Integer(),
    MediaSupported: T.Array(T.String()),
    MediaSupportedId: T.Array(T.Integer()),
    OrientationsSupported: T.Array(T.String()),
    OrientationsSupportedId: T.Array(T.Integer()),
    PaperFormats: T.Array(PaperFormat),
    Resolutions: T.Array(T.String()),
    Trays: T.Array(T.Union([Tray, T.Null()]), { description: '[null] when the trays are unknown' }),
    Default: Defaults,
  },
  { additionalProperties: true },
);

const Configuration = T.Object(
  {
    Drivers: T.Object({ PrinterDynamic: T.String(), PrinterStatic: T.String() }),
    Folders: T.Array(T.Object({ export: T.String(), id: T.Integer(), op: T.Integer() })),
    SFForms: T.Object({ $Count: T.Integer() }),
    Shell: T.Array(T.Unknown()),
    System: T.Object(
      {
        BW: T.Integer(),
        CONNECT: T.String(),
        CONNECTEX: T.String(),
        DocProvUplInterval: T.Integer(),
        FILEEXT: T.String({ description: 'printable extensions, each followed by ;' }),
        HOST: T.String(),
        HOSTEX: T.String(),
        MaxLocalPreviewFileSize: T.Integer(),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true },
);

const JobStatus = T.Object(
  {
    jobpagesprinted: T.Integer(),
    jobpagestotal: T.Integer(),
    jobposition: T.Integer(),
    jobstatus: T.Integer({
      description: '0 finished, 2 invalid job, 129 processing, 1246 no status yet, 3011 restart',
    }),
    jobstatusstring: T.String(),
  },
  { additionalProperties: false },
);

/** Requests of the /sfapi/ routes, checked by the routes themselves (http/schemas.ts DocumentedRequest). */
export const sfapiRequests = {
  getPrinterProperties: {
    querystring: T.Object(
      {
        id: T.Optional(T.String({ format: 'uuid', description: 'printer id; give id or printer, not both' })),
        printer: T.Optional(T.String({ description: 'printer name; give id or printer, not both' })),
      },
      {
        additionalProperties: false,
        description: 'without id or printer every printer you may use is listed',
      },
    ),
  },
  print: {
    body: PrintRequestBody,
    headers: T.Object({
      prefer: T.Optional(
        T.String({
          description: 'handling=strict: unknown fields are a 400 instead of being ignored (RFC 7240)',
          examples: ['handling=strict'],
        }),
      ),
    }),
  },
  status: {
    querystring: T.Object(
      { id: T.String({ minLength: 1, description: 'the jobid of Print' }) },
      { additionalProperties: false },
    ),
  },
  none: { querystring: T.Object({}, { additionalProperties: false }) },
} satisfies Record<string, DocumentedRequest>;

/** Schemas of the /sfapi/ routes. */
export const sfapiSchemas = {
  getConfiguration: { ...base, response: responses({ 200: Configuration }, 401, 403) },
  getPrinter: {
    ...base,
    response: responses(
      {
        200: T.Array(
          T.Object(
            { id: T.String({ format: 'uuid' }), name: T.String(), location: T.String() },
            {
              additionalProperties: false,
            },
          ),
        ),
      },
      401,
      403,
    ),
  },
  getPrinterProperties: {
    ...base,
    response: responses({ 200: T.Array(PrinterPropertiesSchema) }, 400, 401, 403, 404),
  },
  prepareUpload: {
    ...base,
    response: responses(
      {
        200: T.Object(
          {
            fileid: T.String({ format: 'uuid' }),
            sasUri: T.String({ format: 'uri', description: 'signed upload URL, valid one hour' }),
          },
          { additionalProperties: false },
        ),
      },
      401,
      403,
      429,
    ),
  },
  print: {
    ...base,
    response: responses(
      {
        200: T.Object({ jobid: T.String() }, { additionalProperties: false }),
        412: T.Object(
          {
            fileid: T.String({ description: 'the file still being fetched from fileurl' }),
            sasUri: T.Literal(''),
          },
          { additionalProperties: false, description: 'the fetch of fileurl is still running' },
        ),
      },
      400,
      401,
      403,
      404,
      409,
    ),
  },
  status: {
    ...base,
    response: responses({ 200: JobStatus }, 400, 401, 403),
  },
};
