/**
 * Checks of a print document against what its job says, before it goes to a printer: its first
 * bytes against the signature of its declared content type (a PDF starts with `%PDF-`, a PNG
 * with its eight-byte mark…), and a job's page ranges against the document's page count. Types
 * without a fixed signature (plain text, CSV, HTML, XML, mail, the legacy binary office formats
 * that may also be RTF renamed) are not checked. Pure.
 */
import type { PageRange } from './print-ticket.js';

/** How many leading bytes the signature check reads. */
export const SIGNATURE_BYTES = 1024;

/** One accepted start of a type: bytes at an offset, or text anywhere in the first bytes. */
type Signature = { at: number; bytes: readonly number[] } | { within: string };

interface TypeSignature {
  /** What the type is called in the rule ("a PDF", "a PNG image"). */
  name: string;
  /** What it must start with, as the rule says it. */
  says: string;
  signatures: readonly Signature[];
}

const ascii = (text: string): number[] => [...text].map((c) => c.charCodeAt(0));
const ZIP: TypeSignature = {
  name: 'a ZIP-packaged document',
  says: 'the ZIP mark PK\\x03\\x04',
  signatures: [{ at: 0, bytes: [0x50, 0x4b, 0x03, 0x04] }],
};

const SIGNATURES: Readonly<Record<string, TypeSignature>> = Object.freeze({
  // The PDF header may follow a little leading junk; readers look for it in the first 1024 bytes.
  'application/pdf': {
    name: 'a PDF',
    says: '%PDF- (in its first 1024 bytes)',
    signatures: [{ within: '%PDF-' }],
  },
  'application/postscript': { name: 'PostScript', says: '%!', signatures: [{ at: 0, bytes: ascii('%!') }] },
  'image/jpeg': {
    name: 'a JPEG image',
    says: 'the bytes FF D8 FF',
    signatures: [{ at: 0, bytes: [0xff, 0xd8, 0xff] }],
  },
  'image/png': {
    name: 'a PNG image',
    says: 'the PNG mark \\x89PNG\\r\\n\\x1a\\n',
    signatures: [{ at: 0, bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] }],
  },
  'image/gif': {
    name: 'a GIF image',
    says: 'GIF87a or GIF89a',
    signatures: [{ at: 0, bytes: ascii('GIF8') }],
  },
  'image/bmp': { name: 'a BMP image', says: 'BM', signatures: [{ at: 0, bytes: ascii('BM') }] },
  'image/tiff': {
    name: 'a TIFF image',
    says: 'II*\\0 or MM\\0*',
    signatures: [
      { at: 0, bytes: [0x49, 0x49, 0x2a, 0x00] },
      { at: 0, bytes: [0x4d, 0x4d, 0x00, 0x2a] },
    ],
  },
  'image/pwg-raster': { name: 'PWG raster', says: 'RaS2', signatures: [{ at: 0, bytes: ascii('RaS2') }] },
  'image/urf': {
    name: 'Apple raster (URF)',
    says: 'UNIRAST',
    signatures: [{ at: 0, bytes: ascii('UNIRAST') }],
  },
  'application/rtf': { name: 'RTF', says: '{\\rtf', signatures: [{ at: 0, bytes: ascii('{\\rtf') }] },
  'application/vnd.ms-xpsdocument': ZIP,
});

/** The signature of `contentType`, when it has one (ZIP for the OOXML and OpenDocument types). */
function signatureOf(contentType: string): TypeSignature | undefined {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (Object.hasOwn(SIGNATURES, type)) return SIGNATURES[type];
  if (type.startsWith('application/vnd.openxmlformats-officedocument.')) return ZIP;
  // The macro-enabled and binary OOXML variants (docm, xlsm, xlsb, pptm…) are ZIP packages too.
  if (/^application\/vnd\.ms-[a-z]+\.[a-z.]*macroenabled\.12$/.test(type)) return ZIP;
  if (type.startsWith('application/vnd.oasis.opendocument.')) return ZIP;
  return undefined;
}

function matches(head: Uint8Array, signature: Signature): boolean {
  if ('within' in signature) {
    const text = String.fromCharCode(...head.subarray(0, SIGNATURE_BYTES));
    return text.includes(signature.within);
  }
  if (head.length < signature.at + signature.bytes.length) return false;
  return signature.bytes.every((byte, i) => head[signature.at + i] === byte);
}

/**
 * Why a document whose first bytes are `head` (at least SIGNATURE_BYTES of them when it has
 * that many) is not of `contentType`; undefined when it is, or when the type has no signature.
 */
export function documentTypeMismatch(contentType: string, head: Uint8Array): string | undefined {
  const type = signatureOf(contentType);
  if (!type || type.signatures.some((s) => matches(head, s))) return undefined;
  if (head.length === 0) return `the document is empty, not ${type.name} (${contentType})`;
  return `the document is not ${type.name} (${contentType}): it does not start with ${type.says}`;
}

/** Whether `contentType` is a type whose pages the agent counts (PDF). */
export function pagesCountable(contentType: string): boolean {
  return contentType.split(';')[0]!.trim().toLowerCase() === 'application/pdf';
}

/**
 * Why `ranges` select no page of a document of `pages` pages; undefined when at least one page
 * is selected (pages past the end are then simply not printed, as printers do).
 */
export function pageRangesMiss(ranges: readonly PageRange[], pages: number): string | undefined {
  if (ranges.length === 0 || ranges.some((r) => r.from <= pages)) return undefined;
  const written = ranges.map((r) => (r.from === r.to ? `${r.from}` : `${r.from}-${r.to}`)).join(',');
  const count = pages === 1 ? '1 page' : `${pages} pages`;
  return `pageranges ${written} selects no page of the document, which has ${count}`;
}
