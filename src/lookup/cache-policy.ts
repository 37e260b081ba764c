// How long each thing a lookup writes to the cache is kept: the one place to change a lifetime
// (a freshness rule per home would go here too).
import type { Config } from '../config.js';

/**
 * - `home`: a home's entry and its raw record (CACHE_TTL_MS);
 * - `alias`: an address or building key pointing at a home's entry, kept as long as the entry (an
 *   alias outliving its entry is only a miss, one expiring first only a second resolution);
 * - `ambiguity`: the memo of an address that matched several homes (AMBIGUITY_MEMO_TTL_MS), so it
 *   is refused again without a paid resolution.
 */
export type Cached = 'home' | 'alias' | 'ambiguity';

export function ttlFor(config: Pick<Config, 'cacheTtlMs' | 'ambiguityMemoTtlMs'>, what: Cached): number {
  switch (what) {
    case 'home':
    case 'alias':
      return config.cacheTtlMs;
    case 'ambiguity':
      return config.ambiguityMemoTtlMs;
  }
}
