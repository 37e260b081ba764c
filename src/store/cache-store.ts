// The cache in the store: homes read (with their raw records apart), alias keys pointing at them, and
// memos of answers worth remembering (address_ambiguous), each with its lifetime.
import type { ErrorBody, LookupSource } from '../contract/index.js';

/**
 * What a cache hit needs (entry-format.ts says how it is kept). The unmapped source record (`raw`)
 * is kept apart, with the same lifetime, and read only for raw=true.
 */
export interface CacheEntry {
  /** The mapped record (PortalProperty without `raw`) as JSON text: a REST hit sends it as is. */
  record: string;
  fetchedAt: string;
  source: LookupSource;
  zpid: string | null;
}

/** An entry with its raw record's JSON (null: the home was read with none), of one write. */
export interface EntryWithRaw {
  entry: CacheEntry;
  rawJson: string | null;
}

export interface CacheStore {
  /** Entries of another format version (written by older code) read as misses. */
  getEntries(keys: readonly string[]): Promise<(CacheEntry | null)[]>;
  /** Stores the entry and, apart from it with the same lifetime, its raw record's JSON (compressed; null: none). */
  putEntry(key: string, entry: CacheEntry, rawJson: string | null, ttlMs: number): Promise<void>;
  /**
   * Entries with their raw records, each pair read together (one round trip); an entry whose raw record
   * is missing or not of the same write is null, a miss: never an entry with another's raw record.
   */
  getEntriesWithRaw(keys: readonly string[]): Promise<(EntryWithRaw | null)[]>;
  /** Alias keys (e.g. `addr:…`, `bldg:…`) point at a cache key (`zpid:…`). */
  getAliases(keys: readonly string[]): Promise<(string | null)[]>;
  putAlias(key: string, target: string, ttlMs: number): Promise<void>;
  getMemo(key: string): Promise<ErrorBody | null>;
  putMemo(key: string, body: ErrorBody, ttlMs: number): Promise<void>;
}
