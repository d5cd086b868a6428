/**
 * The documented request of /sfapi/Print: every field the emulator reads, with its type, range
 * and meaning, as the OpenAPI document shows it (docs/print-api.md explains each). The schema is
 * the strict contract; the print service parses leniently on top of it (protocol/print-request.ts:
 * keys in any letter case, numbers and booleans as strings, options inside `properties`), so the
 * route documents it without Fastify enforcing it. Pure data.
 */
import { Type as T } from '@sinclair/typebox';
import { CUSTOM_PAPER_ID, desktopPapers } from '../../protocol/paper-sizes.js';
import { COPIES_LIMITS, CUSTOM_PAPER_LIMITS } from '../../protocol/print-request.js';
import { SUPPORTED_FILE_EXTENSIONS } from '../../protocol/sfapi-configuration.js';

const PAPER_IDS = [...new Set([...desktopPapers.map((p) => p.id), CUSTOM_PAPER_ID])].sort((a, b) => a - b);
const customSize = (what: string) =>
  T.Integer({
    minimum: CUSTOM_PAPER_LIMITS.min,
    maximum: CUSTOM_PAPER_LIMITS.max,
    description: `custom paper ${what} in tenths of a millimetre; required when paperid is 256`,
    examples: [what === 'width' ? 2100 : 2970],
  });

/** The JSON body of Print. */
export const PrintRequestBody = T.Object(
  {
    fileid: T.Optional(
      T.String({ description: 'the fileid of PrepareUpload (or of a 412 answer); give fileid or fileurl' }),
    ),
    fileurl: T.Optional(
      T.String({
        format: 'uri',
        description: 'public http(s) URL the emulator fetches; give fileid or fileurl (also read as fileUrl)',
      }),
    ),
    type: T.Union(
      SUPPORTED_FILE_EXTENSIONS.map((e) => T.Literal(e)),
      {
        description:
          'file extension of the document, one of GetConfiguration System.FILEEXT; a document whose first bytes are not of that type (pdf without %PDF-, png without its mark…) is a 400 naming type',
        examples: ['pdf'],
      },
    ),
    printerid: T.String({ format: 'uuid', description: 'printer id from GetPrinter' }),
    alias: T.Optional(
      T.String({
        maxLength: 255,
        description: 'document name shown in queues; default the fileid or the URL file name',
      }),
    ),
    printanddelete: T.Optional(
      T.Boolean({
        description: 'delete the uploaded file once printed (default false: it can be printed again)',
      }),
    ),
    paperid: T.Optional(
      T.Union(
        PAPER_IDS.map((id) => T.Literal(id)),
        {
          description:
            'desktop paper id (9 A4, 1 Letter...; GetPrinterProperties MediaSupportedId); 256 custom size',
        },
      ),
    ),
    paperwidth: T.Optional(customSize('width')),
    paperlength: T.Optional(customSize('length')),
    color: T.Optional(T.Boolean({ description: 'true color, false monochrome; default the printer’s' })),
    collate: T.Optional(T.Boolean({ description: 'collate copies' })),
    duplex: T.Optional(T.Boolean({ description: 'two-sided (long edge unless duplexmode says otherwise)' })),
    duplexmode: T.Optional(
      T.Integer({
        minimum: 1,
        maximum: 3,
        description: '1 one-sided, 2 two-sided long edge, 3 two-sided short edge',
      }),
    ),
    orientation: T.Optional(T.Integer({ minimum: 1, maximum: 2, description: '1 portrait, 2 landscape' })),
    copies: T.Optional(
      T.Integer({
        minimum: COPIES_LIMITS.min,
        maximum: COPIES_LIMITS.max,
        description: 'number of copies (default 1)',
      }),
    ),
    resolution: T.Optional(
      T.String({
        maxLength: 32,
        description: 'dots per inch ("600", "600x600") or a quality word',
        examples: ['600'],
      }),
    ),
    trayname: T.Optional(
      T.String({ maxLength: 255, description: 'tray name from GetPrinterProperties Trays' }),
    ),
    defaultsource: T.Optional(
      T.Integer({
        minimum: 0,
        maximum: 65535,
        description: 'tray index from GetPrinterProperties Trays; wins over trayname',
      }),
    ),
    locale: T.Optional(
      T.String({
        pattern: '^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$',
        description: 'language tag such as en-US',
      }),
    ),
    pageranges: T.Optional(
      T.String({
        maxLength: 1024,
        pattern: '^\\s*\\d+\\s*(-\\s*\\d+\\s*)?(,\\s*\\d+\\s*(-\\s*\\d+\\s*)?)*$',
        description:
          'pages to print: single pages and ranges, comma-separated ("1-3,5"); the spec spells it pageRanges',
        examples: ['1-3,5'],
      }),
    ),
    properties: T.Optional(
      T.Object(
        {
          OrientationsSupported: T.Optional(
            T.String({ description: 'portrait or landscape, when orientation is absent' }),
          ),
          MediaSupported: T.Optional(
            T.String({ description: 'a paper name (A4, Letter...), when paperid is absent' }),
          ),
        },
        {
          additionalProperties: true,
          description:
            'options of the URL-referenced form; any Print option may also be given here (the top level wins)',
        },
      ),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Exactly one of fileid and fileurl. Keys match in any letter case; numbers and booleans are also read from strings. ' +
      'Unknown fields are ignored and named in the X-PrintRelay-Ignored-Fields answer header; with ' +
      '`Prefer: handling=strict` they are a 400 instead.',
    examples: [
      {
        fileid: '0b4f2f9e-6a53-4c0e-9a51-2a7d4b3c1e10',
        type: 'pdf',
        printerid: '5e0c8a4e-3f0b-4d3c-8f2a-9b6a1d7e2c44',
        copies: 2,
        duplexmode: 2,
        orientation: 1,
        paperid: 9,
        pageranges: '1-3,5',
      },
    ],
  },
);
