/**
 * IPP numbers: tags, operations, status codes and states. The base tables come from the
 * `ipp-encoder` package; the collection tags (RFC 8010 section 3.1.6) it lacks are added here.
 * Pure; nothing to clean up.
 */
import ippEncoder from 'ipp-encoder';

const C = ippEncoder.CONSTANTS;

function c(name: string): number {
  const value = C[name];
  if (value === undefined) throw new Error(`ipp-encoder has no constant ${name}`);
  return value;
}

/** Delimiter and value tags. */
export const TAG = Object.freeze({
  OPERATION: c('OPERATION_ATTRIBUTES_TAG'),
  JOB: c('JOB_ATTRIBUTES_TAG'),
  END_OF_ATTRIBUTES: c('END_OF_ATTRIBUTES_TAG'),
  PRINTER: c('PRINTER_ATTRIBUTES_TAG'),
  UNSUPPORTED_GROUP: c('UNSUPPORTED_ATTRIBUTES_TAG'),
  UNSUPPORTED: c('UNSUPPORTED'),
  UNKNOWN: c('UNKNOWN'),
  NO_VALUE: c('NO_VALUE'),
  INTEGER: c('INTEGER'),
  BOOLEAN: c('BOOLEAN'),
  ENUM: c('ENUM'),
  OCTET_STRING: c('OCTET_STRING'),
  DATE_TIME: c('DATE_TIME'),
  RESOLUTION: c('RESOLUTION'),
  RANGE_OF_INTEGER: c('RANGE_OF_INTEGER'),
  BEGIN_COLLECTION: 0x34,
  TEXT_WITH_LANGUAGE: c('TEXT_WITH_LANG'),
  NAME_WITH_LANGUAGE: c('NAME_WITH_LANG'),
  END_COLLECTION: 0x37,
  TEXT: c('TEXT_WITHOUT_LANG'),
  NAME: c('NAME_WITHOUT_LANG'),
  KEYWORD: c('KEYWORD'),
  URI: c('URI'),
  URI_SCHEME: c('URI_SCHEME'),
  CHARSET: c('CHARSET'),
  NATURAL_LANGUAGE: c('NATURAL_LANG'),
  MIME_TYPE: c('MIME_MEDIA_TYPE'),
  MEMBER_NAME: 0x4a,
});

/** Operation ids PrintRelay sends or serves. */
export const OPERATION = Object.freeze({
  PRINT_JOB: c('PRINT_JOB'),
  VALIDATE_JOB: c('VALIDATE_JOB'),
  CREATE_JOB: c('CREATE_JOB'),
  SEND_DOCUMENT: c('SEND_DOCUMENT'),
  CANCEL_JOB: c('CANCEL_JOB'),
  GET_JOB_ATTRIBUTES: c('GET_JOB_ATTRIBUTES'),
  GET_JOBS: c('GET_JOBS'),
  GET_PRINTER_ATTRIBUTES: c('GET_PRINTER_ATTRIBUTES'),
});

/** Status codes used by name. */
export const STATUS = Object.freeze({
  OK: c('SUCCESSFUL_OK'),
  OK_SUBSTITUTED: c('SUCCESSFUL_OK_IGNORED_OR_SUBSTITUTED_ATTRIBUTES'),
  BAD_REQUEST: c('CLIENT_ERROR_BAD_REQUEST'),
  NOT_FOUND: c('CLIENT_ERROR_NOT_FOUND'),
  NOT_POSSIBLE: c('CLIENT_ERROR_NOT_POSSIBLE'),
  FORMAT_NOT_SUPPORTED: c('CLIENT_ERROR_DOCUMENT_FORMAT_NOT_SUPPORTED'),
  ATTRIBUTES_NOT_SUPPORTED: c('CLIENT_ERROR_ATTRIBUTES_OR_VALUES_NOT_SUPPORTED'),
  INTERNAL_ERROR: c('SERVER_ERROR_INTERNAL_ERROR'),
  OPERATION_NOT_SUPPORTED: c('SERVER_ERROR_OPERATION_NOT_SUPPORTED'),
  SERVICE_UNAVAILABLE: c('SERVER_ERROR_SERVICE_UNAVAILABLE'),
  VERSION_NOT_SUPPORTED: c('SERVER_ERROR_VERSION_NOT_SUPPORTED'),
  BUSY: c('SERVER_ERROR_BUSY'),
});

/** job-state enum values by name. */
export const JOB_STATE = Object.freeze({
  pending: 3,
  held: 4,
  processing: 5,
  stopped: 6,
  cancelled: 7,
  aborted: 8,
  completed: 9,
});

/** The IPP keyword of a status code (successful-ok, server-error-busy, ...). */
export function statusName(code: number): string {
  return ippEncoder.STATUS_CODES[code] ?? `status-0x${code.toString(16).padStart(4, '0')}`;
}
