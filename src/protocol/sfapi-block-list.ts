/**
 * The Azure Storage block list (`PUT <sasUri>&comp=blocklist`) that browser clients send after
 * uploading blocks: `<BlockList>` with `<Latest>`, `<Committed>` and `<Uncommitted>` entries in
 * the order the blob is assembled. Pure parsing and block id checks for the storage endpoint.
 */
import { XMLParser } from 'fast-xml-parser';
import { ValidationError } from '../lib/errors.js';

/** Which list a block is taken from. */
export type BlockListKind = 'Latest' | 'Committed' | 'Uncommitted';

/** One entry of a block list, in blob order. */
export interface BlockListEntry {
  kind: BlockListKind;
  /** The base64 block id as the client sent it. */
  id: string;
}

const KINDS = new Set<string>(['Latest', 'Committed', 'Uncommitted']);
const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
});

/** Most a block id may decode to (Azure: 64 bytes). */
export const MAX_BLOCK_ID_BYTES = 64;

/**
 * Checks a base64 block id and returns a file-name-safe key for it (hex of the bytes). Throws a
 * ValidationError naming `blockid` when it is not base64 or too long.
 */
export function blockKey(blockId: string): string {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(blockId) || blockId.length % 4 !== 0) {
    throw new ValidationError('blockid', 'must be base64');
  }
  const bytes = Buffer.from(blockId, 'base64');
  if (bytes.length === 0 || bytes.length > MAX_BLOCK_ID_BYTES) {
    throw new ValidationError('blockid', `must decode to 1 to ${MAX_BLOCK_ID_BYTES} bytes`);
  }
  return bytes.toString('hex');
}

/** Parses the XML block list, keeping the entries' order. Throws a ValidationError on bad XML. */
export function parseBlockList(xml: string): BlockListEntry[] {
  let document: unknown;
  try {
    document = parser.parse(xml);
  } catch (error) {
    throw new ValidationError('blocklist', `must be XML (${(error as Error).message})`);
  }
  const root = (document as Record<string, unknown>[]).find((node) => 'BlockList' in node);
  if (!root) throw new ValidationError('blocklist', 'must have a BlockList root element');
  const entries: BlockListEntry[] = [];
  for (const node of root.BlockList as Record<string, unknown>[]) {
    const [kind] = Object.keys(node);
    if (!kind || !KINDS.has(kind)) throw new ValidationError('blocklist', `unknown element ${kind}`);
    const text = (node[kind] as { '#text'?: unknown }[])[0]?.['#text'];
    if (typeof text !== 'string' || text === '')
      throw new ValidationError('blocklist', `empty ${kind} entry`);
    blockKey(text);
    entries.push({ kind: kind as BlockListKind, id: text });
  }
  return entries;
}
