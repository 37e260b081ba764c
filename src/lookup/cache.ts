// Reading the cache for many homes in one round trip: aliases first, then the entries.
import type { CacheEntry, Store } from '../store/index.js';
import { isDirectKey } from './keys.js';

export interface CacheHit {
  entry: CacheEntry;
  /** The key the entry was found under. */
  entryKey: string;
}

/** For each home key: its entry, following an alias when the key is one. */
export async function readCache(store: Store, keys: readonly string[]): Promise<(CacheHit | null)[]> {
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
  const entries = await store.getEntries(entryKeys);
  const byKey = new Map(entryKeys.map((k, i) => [k, entries[i] ?? null]));
  return keys.map((k) => {
    const target = targets.get(k);
    const viaAlias = target ? byKey.get(target) : null;
    if (viaAlias) return { entry: viaAlias, entryKey: target! };
    const direct = byKey.get(k);
    return direct ? { entry: direct, entryKey: k } : null;
  });
}
