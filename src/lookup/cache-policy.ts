// How long each thing a lookup writes to the cache is kept, and when a kept home may be served: the
// one place to change a lifetime or the freshness rule.
import type { Config } from '../config.js';
import { hasFailedSection } from '../contract/sections.js';
import type { CacheEntry } from '../store/index.js';

/**
 * - `home`: a home's raw record, and how long its entry is served as a hit (CACHE_TTL_MS);
 * - `kept`: how long a home's entry (its text, not the raw record) is kept: its cache lifetime plus
 *   STALE_TTL_MS, so it remains the last good record (stale answers) and the earlier snapshot (change
 *   hints) once it is no longer served as a hit;
 * - `incomplete`: a record with a section in extraction_failed (docs/sections.md): its
 *   raw record, and how long its entry is served as a hit (isFresh), INCOMPLETE_TTL_MS only, so
 *   repeats soon after are free hits and a later lookup reads the page again; its text is kept like a
 *   complete one's (the earlier snapshot of change hints) but is no last good record;
 * - `alias`: an address or building key pointing at a home's entry, kept as long as the entry (an
 *   alias outliving its entry is only a miss, one expiring first only a second resolution);
 * - `ambiguity`: the memo of an address that matched several homes (AMBIGUITY_MEMO_TTL_MS), so it
 *   is refused again without a paid resolution.
 */
export type Cached = 'home' | 'kept' | 'incomplete' | 'alias' | 'ambiguity';

type Lifetimes = Pick<Config, 'cacheTtlMs' | 'staleTtlMs' | 'incompleteTtlMs' | 'ambiguityMemoTtlMs'>;

export function ttlFor(config: Lifetimes, what: Cached): number {
  switch (what) {
    case 'home':
      return config.cacheTtlMs;
    case 'kept':
    case 'alias':
      return config.cacheTtlMs + config.staleTtlMs;
    case 'incomplete':
      return config.incompleteTtlMs;
    case 'ambiguity':
      return config.ambiguityMemoTtlMs;
  }
}

/**
 * What a lookup accepts as a hit: an entry this service read at or after `notBefore` (ms since the
 * epoch, the service clock), fixed when the lookup starts. The cache lifetime, or `max_age` when it
 * is shorter (it only ever tightens the rule): `max_age=0` takes only a read that began after the
 * lookup did, its own or one it joined. An incomplete record (a section in extraction_failed) only
 * within INCOMPLETE_TTL_MS as well: judged on the service clock like the rest, not left to the
 * store's expiry (Redis counts its TTLs on its own clock).
 */
export interface Freshness {
  notBefore: number;
  incompleteNotBefore: number;
}

export function freshnessFor(
  config: Pick<Config, 'cacheTtlMs' | 'incompleteTtlMs'>,
  now: number,
  maxAgeSeconds: number | undefined,
): Freshness {
  const limit = maxAgeSeconds === undefined ? config.cacheTtlMs : Math.min(config.cacheTtlMs, maxAgeSeconds * 1000);
  return { notBefore: now - limit, incompleteNotBefore: now - Math.min(limit, config.incompleteTtlMs) };
}

export const isFresh = (entry: CacheEntry, f: Freshness): boolean =>
  entry.storedAt >= (hasFailedSection(entry.sections) ? f.incompleteNotBefore : f.notBefore);

/** A kept entry that may still stand in for a failed read: within its cache lifetime plus STALE_TTL_MS. */
export const isKept = (config: Lifetimes, entry: CacheEntry, now: number): boolean =>
  entry.storedAt + ttlFor(config, 'kept') > now;

/** meta.age_seconds: whole seconds since this service read the record (never negative). */
export const ageSeconds = (entry: CacheEntry, now: number): number =>
  Math.max(0, Math.floor((now - entry.storedAt) / 1000));
