/**
 * /TPFM/ vocabulary shared by the emulator's server and the agent's client: command names,
 * header names, X-FMP-Return codes with their meanings in English and German, and the base64
 * coding of X-FMP-ErrText / X-FMP-OSErrText. Pure: no I/O.
 *
 * Codes 11, 12 and 13 are not defined by the spec (it lists 12 and 13 as possible results of the
 * local-job commands without a meaning). PrintRelay defines them:
 *  - 11: invalid or missing command parameter (a parameter other than those with their own code)
 *  - 12: invalid local-job parameter (CreateLocalJob / UpdateLocalJob parameter table)
 *  - 13: unknown or closed local job (UpdateLocalJob on an id never issued, finished or timed out)
 */

/** Header names of the protocol, as sent on the wire. */
export const TPFM_HEADERS = {
  langId: 'X-Lang-ID',
  userAgent: 'X-FMP-User-Agent',
  return: 'X-FMP-Return',
  errText: 'X-FMP-ErrText',
  osError: 'X-FMP-OSError',
  osErrText: 'X-FMP-OSErrText',
  visible: 'X-FMP-Visible',
  procId: 'X-FMP-ProcId',
  progressType: 'X-FMP-ProgressType',
  jobId: 'X-FMP-JobId',
} as const;

/** Every command of the protocol, with whether it needs Basic authentication. */
export const TPFM_COMMANDS = {
  GetVersion: { auth: 'none', codes: [1, 2] },
  GetCapabilities: { auth: 'optional', codes: [2] },
  GetJobList: { auth: 'user', codes: [1, 2, 3, 4] },
  DeleteJob: { auth: 'user', codes: [1, 2, 3, 5] },
  PrintJob: { auth: 'user', codes: [1, 2, 3, 4, 5, 6, 7, 8, 10] },
  CancelPrintJob: { auth: 'user', codes: [1, 2, 3, 9] },
  SetJobProperties: { auth: 'user', codes: [1, 2, 3, 5, 11] },
  CreateLocalJob: { auth: 'user', codes: [1, 2, 3, 4, 12] },
  UpdateLocalJob: { auth: 'user', codes: [1, 2, 3, 12, 13] },
  PrepareUpload: { auth: 'user', codes: [1, 2, 3, 11] },
} as const satisfies Record<string, { auth: 'none' | 'optional' | 'user'; codes: readonly number[] }>;

/** A command name of the protocol. */
export type TpfmCommand = keyof typeof TPFM_COMMANDS;

/** The X-FMP-Return codes (0 = success). */
export enum TpfmReturnCode {
  Success = 0,
  OsError = 1,
  CommandNotSupported = 2,
  NotAllowed = 3,
  InvalidPrinter = 4,
  JobNotFound = 5,
  InvalidCopies = 6,
  InvalidDeleteFlag = 7,
  InvalidProgressFlag = 8,
  InvalidProcId = 9,
  Cancelled = 10,
  InvalidParameter = 11,
  InvalidLocalJobParameter = 12,
  UnknownLocalJob = 13,
}

/** Languages with their own error texts; any other X-Lang-ID falls back to English. */
export type TpfmLanguage = 'en' | 'de';

const texts: Record<TpfmReturnCode, Record<TpfmLanguage, string>> = {
  0: { en: 'Success', de: 'Erfolgreich' },
  1: { en: 'Operating system error on the server', de: 'Betriebssystemfehler auf dem Server' },
  2: { en: 'Command not supported', de: 'Befehl wird nicht unterstützt' },
  3: { en: 'User not allowed to run the command', de: 'Benutzer darf den Befehl nicht ausführen' },
  4: { en: 'Invalid printer', de: 'Ungültiger Drucker' },
  5: { en: 'Job file does not exist', de: 'Auftragsdatei existiert nicht' },
  6: { en: 'Invalid copy count', de: 'Ungültige Anzahl Kopien' },
  7: { en: 'Invalid delete flag', de: 'Ungültiges Löschkennzeichen' },
  8: { en: 'Invalid progress flag', de: 'Ungültiges Fortschrittskennzeichen' },
  9: { en: 'Invalid print process id', de: 'Ungültige Druckprozess-ID' },
  10: { en: 'Print job cancelled', de: 'Druckauftrag abgebrochen' },
  11: { en: 'Invalid or missing command parameter', de: 'Ungültiger oder fehlender Befehlsparameter' },
  12: { en: 'Invalid local job parameter', de: 'Ungültiger Parameter des lokalen Auftrags' },
  13: { en: 'Unknown or closed local job', de: 'Unbekannter oder abgeschlossener lokaler Auftrag' },
};

/** Whether a number is a code this protocol defines. */
export function isTpfmReturnCode(code: number): code is TpfmReturnCode {
  return Number.isInteger(code) && code >= 0 && code <= 13;
}

/** The X-Lang-ID value reduced to a language with texts ('de-AT' → 'de', unknown → 'en'). */
export function tpfmLanguage(langId: string | undefined): TpfmLanguage {
  return langId?.trim().slice(0, 2).toLowerCase() === 'de' ? 'de' : 'en';
}

/** The localized meaning of a return code; unknown codes get a generic text naming the code. */
export function tpfmErrorText(code: number, langId?: string): string {
  const lang = tpfmLanguage(langId);
  if (isTpfmReturnCode(code)) return texts[code][lang];
  return lang === 'de' ? `Unbekannter Fehlercode ${code}` : `Unknown error code ${code}`;
}

/** Base64 of the UTF-8 bytes of a text, as X-FMP-ErrText and X-FMP-OSErrText carry it. */
export function encodeErrText(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Decodes a base64 X-FMP-ErrText value; an empty or malformed value gives ''. */
export function decodeErrText(value: string | undefined): string {
  if (!value) return '';
  try {
    const binary = atob(value.trim());
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  } catch {
    return '';
  }
}

/** Parses an X-FMP-Return value; undefined when absent or not a non-negative integer. */
export function parseReturnCode(value: string | undefined): number | undefined {
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number(value.trim());
}
