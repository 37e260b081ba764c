// How a cache entry is kept, by both stores: what a hit needs in one small text (a short tag, the
// entry's details as JSON, then the mapped record's JSON as is, so a REST hit sends it without
// parsing), and the page's raw record apart, compressed, read only for raw=true.
// The tag carries the format's version: text of any other version (or none) reads as a miss, never
// as a mis-read entry. The Redis keys carry the version too (redis/keys.ts), so during a rolling upgrade
// the old and the new instances each read only their own entries.
// The entry and its raw record are two values that can part (one expires or is evicted first, or a
// rewrite lands between two reads): both carry the id of the write that made them, and a raw record
// of another write, or missing when the entry says it has one, is not the entry's (readWithRaw).
// A damaged entry (cut short, say) is caught by the record's length, kept in the details.
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, brotliDecompress, constants } from 'node:zlib';
import type { CacheEntry, EntryWithRaw } from './types.js';

/** Bump when the stored form changes. */
export const ENTRY_FORMAT = 4;
const TAG = `pe${ENTRY_FORMAT}\n`;

interface Details extends Omit<CacheEntry, 'record'> {
  /** The record's length in UTF-16 units. */
  len: number;
  /** The id of the write, also at the head of its raw record; null: written with no raw record. */
  raw: string | null;
}

/** An entry and its raw record as stored: the entry's text, the raw record compressed behind the write's id. */
export interface StoredEntry {
  text: string;
  raw: Buffer | null;
}

/** The stored form of an entry and its raw record's JSON (null: none), marked as one write. */
export async function encodeEntry(entry: CacheEntry, rawJson: string | null): Promise<StoredEntry> {
  const { record, ...rest } = entry;
  const rawId = rawJson === null ? null : randomBytes(6).toString('base64url');
  const details: Details = { ...rest, len: record.length, raw: rawId };
  const text = `${TAG}${JSON.stringify(details)}\n${record}`;
  return { text, raw: rawId === null ? null : Buffer.concat([Buffer.from(`${rawId}\n`), await packRaw(rawJson!)]) };
}

function decode(text: string | null): { entry: CacheEntry; rawId: string | null } | null {
  if (text === null || !text.startsWith(TAG)) return null;
  const end = text.indexOf('\n', TAG.length);
  if (end < 0 || text.charCodeAt(end + 1) !== 123 /* { */ || text.charCodeAt(text.length - 1) !== 125 /* } */)
    return null;
  let details: Details;
  try {
    details = JSON.parse(text.slice(TAG.length, end)) as Details;
  } catch {
    return null;
  }
  if (typeof details?.fetchedAt !== 'string' || typeof details.source !== 'object' || details.source === null)
    return null;
  if (typeof details.storedAt !== 'number' || (details.changes !== undefined && !Array.isArray(details.changes)))
    return null;
  if (typeof details.sections !== 'object' || details.sections === null) return null;
  if (details.len !== text.length - end - 1 || (details.raw !== null && typeof details.raw !== 'string')) return null;
  const { len: _len, raw: rawId, ...rest } = details;
  return { entry: { ...rest, record: text.slice(end + 1), zpid: details.zpid ?? null }, rawId };
}

/** The entry stored as `text`, or null when the text is of another format or damaged. */
export function decodeEntry(text: string | null): CacheEntry | null {
  return decode(text)?.entry ?? null;
}

/**
 * The entry and its raw record's JSON, when both are there and of one write; null (a miss) when the
 * entry is absent or damaged, or its raw record is missing, of another write or damaged.
 */
export async function readWithRaw(text: string | null, raw: Buffer | null): Promise<EntryWithRaw | null> {
  const stored = decode(text);
  if (!stored) return null;
  if (stored.rawId === null) return { entry: stored.entry, rawJson: null };
  const head = Buffer.from(`${stored.rawId}\n`);
  if (raw === null || !raw.subarray(0, head.length).equals(head)) return null;
  const rawJson = await unpackRaw(raw.subarray(head.length));
  return rawJson === null ? null : { entry: stored.entry, rawJson };
}

const compress = promisify(brotliCompress);
const decompress = promisify(brotliDecompress);

/**
 * The raw record's JSON, compressed (about a tenth of its size) on libuv's thread pool, so the
 * event loop keeps serving. Quality 4: a few ms for a 300 KB record; higher ones cost far more time.
 */
function packRaw(json: string): Promise<Buffer> {
  return compress(Buffer.from(json), {
    params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(json) },
  });
}

/** The raw record's JSON, or null when the stored bytes do not decompress (a damaged value reads as absent). */
async function unpackRaw(packed: Buffer): Promise<string | null> {
  try {
    return (await decompress(packed)).toString('utf8');
  } catch {
    return null;
  }
}
