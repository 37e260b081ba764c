// The cache in the store: homes read (with their raw records apart), alias keys pointing at them, and
// memos of answers worth remembering (address_ambiguous), each with its lifetime.
import type { ErrorBody, FieldChange, LookupSource, Sections } from '../contract/index.js';

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
  /** What the page held of each section (meta.sections): a hit reports what the live read did. */
  sections: Sections;
  /**
   * When this service began the read that made the entry (ms since the epoch, the service clock):
   * what freshness (`max_age`) and meta.age_seconds measure. fetchedAt may be earlier (a fallback
   * provider's own collection time).
   */
  storedAt: number;
  /** What changed since the snapshot of the same home this one replaced (meta.changes); absent when it replaced none. */
  changes?: FieldChange[];
  /** That snapshot's fetchedAt (meta.previous_fetched_at), with `changes`. */
  previousFetchedAt?: string;
  /**
   * The reservation the live read that made the entry held: a job chunk's re-run charges a read its dead run
   * made (and did not charge) only when the entry is that read's, never another request's read of the home.
   */
  readBy?: string;
}

/** An entry with its raw record's JSON (null: the home was read with none), of one write. */
export interface EntryWithRaw {
  entry: CacheEntry;
  rawJson: string | null;
}

export interface CacheStore {
  /** Entries of another format version (written by older code) read as misses. */
  getEntries(keys: readonly string[]): Promise<(CacheEntry | null)[]>;
  /**
   * Stores the entry and, apart from it, its raw record's JSON (compressed; null: none) for `ttlMs`;
   * the entry itself is kept `keepMs` (at least ttlMs; ttlMs when not given): past ttlMs it reads
   * without its raw record (getEntriesWithRaw: a miss), and is still there for getEntries.
   */
  putEntry(key: string, entry: CacheEntry, rawJson: string | null, ttlMs: number, keepMs?: number): Promise<void>;
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
