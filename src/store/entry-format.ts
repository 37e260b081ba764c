// How a cache entry is kept, by both stores: what a hit needs in one small text (a short tag, the
// entry's details as JSON, then the mapped record's JSON as is, so a REST hit sends it without
// parsing), and the page's raw record apart, compressed, read only for raw=true.
// The tag carries the format's version: text of any other version (or none) reads as a miss, never
// as a mis-read entry. The Redis keys carry the version too (redis.ts), so during a rolling upgrade
// the old and the new instances each read only their own entries.
import { promisify } from 'node:util';
import { brotliCompress, brotliDecompress, constants } from 'node:zlib';
import type { CacheEntry } from './types.js';

/** Bump when the stored form changes. */
export const ENTRY_FORMAT = 2;
const TAG = `pe${ENTRY_FORMAT}\n`;

export function encodeEntry(entry: CacheEntry): string {
  const { record, ...details } = entry;
  return `${TAG}${JSON.stringify(details)}\n${record}`;
}

/** The entry stored as `text`, or null when the text is of another format or damaged. */
export function decodeEntry(text: string | null): CacheEntry | null {
  if (text === null || !text.startsWith(TAG)) return null;
  const end = text.indexOf('\n', TAG.length);
  if (end < 0 || text.charCodeAt(end + 1) !== 123 /* { */) return null;
  let details: Omit<CacheEntry, 'record'>;
  try {
    details = JSON.parse(text.slice(TAG.length, end)) as Omit<CacheEntry, 'record'>;
  } catch {
    return null;
  }
  if (typeof details?.fetchedAt !== 'string' || typeof details.source !== 'object' || details.source === null) return null;
  return { record: text.slice(end + 1), fetchedAt: details.fetchedAt, source: details.source, zpid: details.zpid ?? null };
}

const compress = promisify(brotliCompress);
const decompress = promisify(brotliDecompress);

/**
 * The raw record's JSON, compressed (about a tenth of its size) on libuv's thread pool, so the
 * event loop keeps serving. Quality 4: a few ms for a 300 KB record; higher ones cost far more time.
 */
export function packRaw(json: string): Promise<Buffer> {
  return compress(Buffer.from(json), {
    params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(json) },
  });
}

/** The raw record's JSON, or null when the stored bytes do not decompress (a damaged value reads as absent). */
export async function unpackRaw(packed: Buffer | null): Promise<string | null> {
  if (packed === null) return null;
  try {
    return (await decompress(packed)).toString('utf8');
  } catch {
    return null;
  }
}
