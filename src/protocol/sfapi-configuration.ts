/**
 * The /sfapi/ print submission API's fixed data: the supported file types (System.FILEEXT of
 * GetConfiguration, the `type` values Print accepts), the GetConfiguration document, the job
 * status codes and the wire shapes of the other answers. Pure; used by the emulator's routes
 * and the agent's SfapiClient.
 */

/** Every extension the spec lists as printable, in the spec's order, with a content type. */
export const SUPPORTED_FILE_TYPES: Readonly<Record<string, string>> = Object.freeze({
  bmp: 'image/bmp',
  csv: 'text/csv',
  doc: 'application/msword',
  docm: 'application/vnd.ms-word.document.macroEnabled.12',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  dot: 'application/msword',
  dotm: 'application/vnd.ms-word.template.macroEnabled.12',
  dotx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.template',
  eml: 'message/rfc822',
  gif: 'image/gif',
  htm: 'text/html',
  html: 'text/html',
  jpeg: 'image/jpeg',
  jpg: 'image/jpeg',
  log: 'text/plain',
  mht: 'multipart/related',
  mhtml: 'multipart/related',
  odf: 'application/vnd.oasis.opendocument.formula',
  odg: 'application/vnd.oasis.opendocument.graphics',
  odm: 'application/vnd.oasis.opendocument.text-master',
  odp: 'application/vnd.oasis.opendocument.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  otg: 'application/vnd.oasis.opendocument.graphics-template',
  oth: 'application/vnd.oasis.opendocument.text-web',
  otp: 'application/vnd.oasis.opendocument.presentation-template',
  ott: 'application/vnd.oasis.opendocument.text-template',
  pdf: 'application/pdf',
  png: 'image/png',
  pot: 'application/vnd.ms-powerpoint',
  potm: 'application/vnd.ms-powerpoint.template.macroEnabled.12',
  potx: 'application/vnd.openxmlformats-officedocument.presentationml.template',
  pps: 'application/vnd.ms-powerpoint',
  ppsx: 'application/vnd.openxmlformats-officedocument.presentationml.slideshow',
  ppt: 'application/vnd.ms-powerpoint',
  pptm: 'application/vnd.ms-powerpoint.presentation.macroEnabled.12',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  rtf: 'application/rtf',
  scp: 'text/plain',
  sda: 'application/vnd.stardivision.draw',
  sdd: 'application/vnd.stardivision.impress',
  sds: 'application/vnd.stardivision.chart',
  sdw: 'application/vnd.stardivision.writer',
  sgl: 'application/vnd.stardivision.writer-global',
  smf: 'application/vnd.stardivision.math',
  sti: 'application/vnd.sun.xml.impress.template',
  stw: 'application/vnd.sun.xml.writer.template',
  sxd: 'application/vnd.sun.xml.draw',
  sxg: 'application/vnd.sun.xml.writer.global',
  sxi: 'application/vnd.sun.xml.impress',
  sxm: 'application/vnd.sun.xml.math',
  sxw: 'application/vnd.sun.xml.writer',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  tpf: 'application/octet-stream',
  txt: 'text/plain',
  vor: 'application/vnd.stardivision.writer',
  wtx: 'text/plain',
  xls: 'application/vnd.ms-excel',
  xlsb: 'application/vnd.ms-excel.sheet.binary.macroEnabled.12',
  xlsm: 'application/vnd.ms-excel.sheet.macroEnabled.12',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  xlt: 'application/vnd.ms-excel',
  xltm: 'application/vnd.ms-excel.template.macroEnabled.12',
  xltx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.template',
  xml: 'application/xml',
  xps: 'application/vnd.ms-xpsdocument',
});

/** The supported extensions in the spec's order. */
export const SUPPORTED_FILE_EXTENSIONS: readonly string[] = Object.freeze(Object.keys(SUPPORTED_FILE_TYPES));

/** System.FILEEXT: the extensions joined by semicolons, with a trailing semicolon. */
export const FILEEXT = `${SUPPORTED_FILE_EXTENSIONS.join(';')};`;

/** Whether `extension` (lower case, no dot) is printable. */
export function isSupportedExtension(extension: string): boolean {
  return Object.hasOwn(SUPPORTED_FILE_TYPES, extension);
}

/** The content type of a supported extension; application/octet-stream otherwise. */
export function contentTypeForExtension(extension: string): string {
  return SUPPORTED_FILE_TYPES[extension] ?? 'application/octet-stream';
}

/** The GetConfiguration document. */
export interface SfapiConfiguration {
  Drivers: { PrinterDynamic: string; PrinterStatic: string };
  Folders: { export: string; id: number; op: number }[];
  SFForms: { $Count: number };
  Shell: unknown[];
  System: {
    BW: number;
    CONNECT: string;
    CONNECTEX: string;
    DocProvUplInterval: number;
    FILEEXT: string;
    HOST: string;
    HOSTEX: string;
    MaxLocalPreviewFileSize: number;
  };
}

/**
 * The GetConfiguration answer for a service reached at `baseUrl` (scheme, host and port). The
 * keys other than FILEEXT are not described by the spec; the values are plausible ones.
 */
export function sfapiConfiguration(baseUrl: string): SfapiConfiguration {
  const url = new URL(baseUrl);
  const secure = url.protocol === 'https:';
  const port = url.port || (secure ? '443' : '80');
  return {
    Drivers: { PrinterDynamic: 'PrintRelay Dynamic', PrinterStatic: 'PrintRelay Static' },
    Folders: [{ export: 'Documents', id: 1, op: 0 }],
    SFForms: { $Count: 0 },
    Shell: [],
    System: {
      BW: 0,
      CONNECT: `${url.hostname}:${port}`,
      CONNECTEX: `${url.protocol}//${url.host}/TPFM/`,
      DocProvUplInterval: 30,
      FILEEXT,
      HOST: url.hostname,
      HOSTEX: `${url.protocol}//${url.host}`,
      MaxLocalPreviewFileSize: 10 * 1024 * 1024,
    },
  };
}

/** Status codes of the `jobstatus` field. */
export const JOB_STATUS = Object.freeze({
  /** The job finished. */
  finished: 0,
  /** No job with that id. */
  invalidJob: 2,
  /** The job is being processed. */
  processing: 129,
  /** No status yet; keep polling. */
  noStatusYet: 1246,
  /** The job failed and must be restarted. */
  mustRestart: 3011,
});

/** The Status answer. */
export interface SfapiJobStatus {
  jobpagesprinted: number;
  jobpagestotal: number;
  jobposition: number;
  jobstatus: number;
  jobstatusstring: string;
}

/** The Status answer for an id the service does not know. */
export function unknownJobStatus(): SfapiJobStatus {
  return {
    jobpagesprinted: 0,
    jobpagestotal: 0,
    jobposition: 0,
    jobstatus: JOB_STATUS.invalidJob,
    jobstatusstring: 'ERROR|INVALID_JOB|',
  };
}

/** One element of the GetPrinter answer. */
export interface SfapiPrinter {
  id: string;
  name: string;
  location: string;
}

/** The PrepareUpload answer. */
export interface PrepareUploadResponse {
  fileid: string;
  sasUri: string;
}

/**
 * The body of /sfapi/Print/ as a client sends it: exactly one of fileid or fileurl. The service
 * reads it leniently (print-request.ts) and validates it strictly.
 */
export interface SfapiPrintRequest {
  fileid?: string;
  fileurl?: string;
  type: string;
  printerid: string;
  alias?: string;
  printanddelete?: boolean;
  paperid?: number;
  paperlength?: number;
  paperwidth?: number;
  color?: boolean;
  duplex?: boolean;
  duplexmode?: number;
  orientation?: number;
  copies?: number;
  resolution?: string;
  trayname?: string;
  defaultsource?: number;
  locale?: string;
  pageRanges?: string;
}

/** The Print answer: `jobid` on success; on 412 the fileid to repeat the request with. */
export type PrintResponse = { jobid: string } | { fileid: string; sasUri: '' };

/** One broken rule in an error answer. */
export interface SfapiFieldError {
  error: string;
  message: string;
  field: string;
  rule: string;
}

/**
 * The body of an error answer of the /sfapi/ routes: the first broken rule's field and rule,
 * and for validation failures every broken rule in `errors`.
 */
export interface SfapiErrorBody {
  error: string;
  message: string;
  field?: string;
  rule?: string;
  errors?: SfapiFieldError[];
}
