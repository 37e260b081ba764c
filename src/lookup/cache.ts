// Reading the cache for many homes in one round trip: aliases first, then the entries.
import DataLoader from 'dataloader';
import type { CacheEntry, CacheStore } from '../store/index.js';
import { hasFailedSection } from '../contract/sections.js';
import { isFresh, type Freshness } from './cache-policy.js';
import { isDirectKey, lastGoodKey } from './keys.js';
import type { CacheHit, Loaded } from './types.js';

/** The request's cache reads, batched into one store round trip per tick. */
export function createCacheLoader(store: CacheStore): DataLoader<string, CacheHit | null> {
  return new DataLoader<string, CacheHit | null>((keys) => readCache(store, keys), { maxBatchSize: 100 });
}

/**
 * For each home key: its entry, following an alias when the key is one. `withRaw` (raw=true) reads
 * each entry together with its raw record; an entry without its own raw record is a miss.
 */
export async function readCache(
  store: CacheStore,
  keys: readonly string[],
  withRaw = false,
): Promise<(CacheHit | null)[]> {
  const aliasKeys = keys.filter((k) => !isDirectKey(k));
  const targets = new Map<string, string>();
  if (aliasKeys.length > 0) {
    const resolved = await store.getAliases(aliasKeys);
    aliasKeys.forEach((k, i) => {
      const t = resolved[i];
      if (t) targets.set(k, t);
    });
  }
  // An alias key may also hold an entry itself (a home read with no zpid), so read both.
  const entryKeys = [...new Set(keys.flatMap((k) => (targets.has(k) ? [targets.get(k)!, k] : [k])))];
  const found: ({ entry: CacheEntry; rawJson?: string | null } | null)[] = withRaw
    ? await store.getEntriesWithRaw(entryKeys)
    : (await store.getEntries(entryKeys)).map((entry) => entry && { entry });
  const byKey = new Map(entryKeys.map((k, i) => [k, found[i] ?? null]));
  return keys.map((k) => {
    const target = targets.get(k);
    const viaAlias = target ? byKey.get(target) : null;
    if (viaAlias) return { ...viaAlias, entryKey: target! };
    const direct = byKey.get(k);
    return direct ? { ...direct, entryKey: k } : null;
  });
}

/**
 * The home `key`'s last good record (stale answers): its entry when that is complete, else the
 * complete entry an incomplete read replaced, kept beside it (lastGoodKey); null when neither is there.
 */
export async function readLastGood(store: CacheStore, key: string): Promise<CacheHit | null> {
  const [found] = await readCache(store, [key]);
  if (found && !hasFailedSection(found.entry.sections)) return found;
  const entryKey = found?.entryKey ?? (isDirectKey(key) ? key : ((await store.getAliases([key]))[0] ?? key));
  const [good] = await store.getEntries([lastGoodKey(entryKey)]);
  return good ? { entry: good, entryKey } : null;
}

/** A home's entry as one lookup sees it: a hit (fresh enough for it), or the earlier snapshot a live read replaces. */
export interface Seen {
  hit: CacheHit | null;
  /** An entry too old for this lookup (or, raw=true, without its raw record): the last good record, the earlier snapshot. */
  previous: CacheHit | null;
}

/** What a lookup finds of a home in the store; `found` is a read already made (without raw). */
export function seenAs(found: CacheHit | null, freshness: Freshness): Seen {
  return found && isFresh(found.entry, freshness) ? { hit: found, previous: null } : { hit: null, previous: found };
}

/**
 * The home `key` as a lookup with `freshness` sees it, in one round trip when it is a hit. raw=true
 * reads the entry with its raw record; an entry without its own (its raw record outlived: kept
 * past its cache lifetime) is read again alone, as the earlier snapshot.
 */
export async function readHome(store: CacheStore, key: string, raw: boolean, freshness: Freshness): Promise<Seen> {
  const [found] = await readCache(store, [key], raw);
  if (found || !raw) return seenAs(found ?? null, freshness);
  const [alone] = await readCache(store, [key]);
  return { hit: null, previous: alone ?? null };
}

/**
 * A home this request did not read and does not pay for, reported under `cacheKey`: a cache hit, or
 * another reader's result (a Loaded is a CacheHit too), with the raw record when it was read with it.
 */
export const loadedFromHit = (hit: CacheHit, cacheKey: string): Loaded => ({
  entry: hit.entry,
  entryKey: hit.entryKey,
  cacheKey,
  cached: true,
  credits: 0,
  ...(hit.rawJson !== undefined ? { rawJson: hit.rawJson } : {}),
});
