// The cost preview of a batch (dry run): what each item would cost now and whether the account could
// pay it, from the batch's own rules (validation, cache read path, one charge per home, the plan's
// reservation terms), read-only: no lookup, no upstream call, no charge, no reservation. REST
// (?dry_run=true) and GraphQL (dryRun: true) both call previewBatch.
import { creditsAvailable } from '../accounts/index.js';
import {
  itemOptions,
  LookupError,
  type BatchItemResult,
  type BatchPreviewItem,
  type BatchPreviewMeta,
  type ErrorBody,
  type LookupOptions,
} from '../contract/index.js';
import { admitLookups, type Admission } from './admission.js';
import { readCache, seenAs, type Seen } from './cache.js';
import { freshnessFor } from './cache-policy.js';
import { homeKeyOf } from './keys.js';
import type { RequestContext } from './types.js';

export interface BatchPreview {
  data: BatchPreviewItem[];
  meta: BatchPreviewMeta;
}

/** A valid item's outcome as the batch would have it before any read. */
type Verdict = { ok: true; live: boolean; cacheKey: string; billedAs: string } | { ok: false; error: ErrorBody };

/**
 * Prices a parsed batch. One unit of the key's rate window per request (not per item: nothing is
 * looked up, but the store is read, so it is no free way to hammer it); refused, the whole preview is.
 * The store is read once for all items: the cache (aliases, then entries), the ambiguity memos of
 * the addresses, the account's usage and the daily budget, all at once.
 */
export async function previewBatch(
  ctx: RequestContext,
  items: readonly BatchItemResult[],
  options: LookupOptions,
  admission?: Admission,
): Promise<BatchPreview> {
  const started = performance.now();
  await (admission ? admission.draw(1) : admitLookups(ctx, 1));
  const { store, config, clock } = ctx.deps;
  const keyOf = items.map((item) => (item.ok ? homeKeyOf(item.locator) : null));
  const keys = [...new Set(keyOf.filter((k) => k !== null))];
  const addressKeys = [
    ...new Set(items.flatMap((item, i) => (item.ok && item.locator.kind === 'address' ? [keyOf[i]!] : []))),
  ];
  const now = clock();
  const [found, memos, available] = await Promise.all([
    // raw=true: an entry without its own raw record is a miss, as the batch reads it.
    readCache(store, keys, options.raw),
    Promise.all(addressKeys.map((k) => store.getMemo(k))),
    creditsAvailable(store, ctx.account, config, now),
  ]);
  const foundOf = new Map(keys.map((k, i) => [k, found[i] ?? null]));
  const memoOf = new Map(addressKeys.map((k, i) => [k, memos[i] ?? null]));

  // The loader's order for one home: a hit fresh enough for the item is served (the batch's freshness
  // rule: the cache lifetime, or the item's max_age, else the batch's); else live lookups off, an
  // ambiguity memo, or a live read (an entry too old is read live and billed, even if a failed read
  // would then answer it as stale for 0).
  // A live read is billed once per home it reads (the batch's rule is by the entry read): an alias to
  // an entry too old leads to that entry's home, so its key is the home's, not the alias's.
  const verdictOf = (key: string, isAddress: boolean, seen: Seen): Verdict => {
    const { hit, previous } = seen;
    if (hit) return { ok: true, live: false, cacheKey: isAddress ? key : hit.entryKey, billedAs: hit.entryKey };
    if (!config.liveLookupsEnabled) return { ok: false, error: new LookupError('live_lookups_disabled').toBody() };
    const memo = memoOf.get(key);
    // The memo is the refusal's own body, as the loader stored it.
    if (memo) return { ok: false, error: memo };
    return { ok: true, live: true, cacheKey: key, billedAs: previous?.entryKey ?? key };
  };

  // A home read live once per request is billed once: later items naming it cost nothing.
  const billed = new Set<string>();
  const data = items.map((item, index): BatchPreviewItem => {
    if (!item.ok) return { index, ok: false, would_cost: 0, error: item.error.toBody() };
    const key = keyOf[index]!;
    const freshness = freshnessFor(config, now.getTime(), itemOptions(item, options).maxAge);
    const verdict = verdictOf(key, item.locator.kind === 'address', seenAs(foundOf.get(key) ?? null, freshness));
    if (!verdict.ok) return { index, ok: false, would_cost: 0, error: verdict.error };
    const first = verdict.live && !billed.has(verdict.billedAs);
    if (first) billed.add(verdict.billedAs);
    return { index, ok: true, would_cost: first ? 1 : 0, cache_key: verdict.cacheKey };
  });

  const estimate = billed.size;
  const succeeded = data.filter((d) => d.ok).length;
  return {
    data,
    meta: {
      count: data.length,
      succeeded,
      failed: data.length - succeeded,
      // As a batch counts them: items served at no cost, a later item naming a home read live included.
      cache_hits: succeeded - estimate,
      credits: 0,
      credits_estimate: estimate,
      credits_available: available,
      affordable: estimate === 0 || available === null || estimate <= available,
      took_ms: Math.round(performance.now() - started),
    },
  };
}
