// The per-request loading of homes: every lookup of a request (a REST call, a batch, a GraphQL
// operation) goes through it, so one home is loaded once and the cache is read in one round trip.
import { LookupError, toLookupError, type Locator, type LookupOptions } from '../contract/index.js';
import { loadedFromHit, readHome, seenAs, type Seen } from './cache.js';
import { freshnessFor, ttlFor, type Freshness } from './cache-policy.js';
import { retryFreshness } from './idempotency.js';
import { addressKey, rawFlightKey, zpidKey } from './keys.js';
import { release, reserve } from './billing.js';
import { readContextFor, throwIfAborted } from './deadline.js';
import { liveLookup, putAliasOrLog, standIn } from './live.js';
import { holdLiveSlot } from './live-slot.js';
import { timeUpstream } from '../observability/request-stats.js';
import type { ReadTarget } from '../collector/types.js';
import type { Loaded, RequestContext } from './types.js';

export interface HomeRequest {
  /** homeKeyOf(locator): requests with the same key are the same home. */
  key: string;
  locator: Locator;
  options: LookupOptions;
}

/**
 * Loads a home once per request. Each home settles on its own (a slow read never holds back the
 * others), while the cache reads of all homes asked for in one tick share one round trip.
 */
export function loadHome(ctx: RequestContext, req: HomeRequest): Promise<Loaded> {
  // With raw=true a home is loaded with its raw record, apart from the same home without; with
  // another max_age or stale, apart too (each may need another answer).
  const { raw, maxAge, stale } = req.options;
  const key = `${raw ? rawFlightKey(req.key) : req.key}${maxAge === undefined ? '' : `|${maxAge}`}${stale === false ? '|no-stale' : ''}`;
  let loading = ctx.homes.get(key);
  if (!loading) {
    loading = loadOne(ctx, req, retryFreshness(ctx, freshnessFor(ctx.deps.config, ctx.deps.clock().getTime(), maxAge)));
    ctx.homes.set(key, loading);
  }
  return loading;
}

async function loadOne(ctx: RequestContext, req: HomeRequest, freshness: Freshness): Promise<Loaded> {
  // raw=true reads the entry with its raw record (rare: not batched); one without its own is a miss.
  const seen = req.options.raw
    ? await readHome(ctx.deps.store, req.key, true, freshness)
    : seenAs(await ctx.cache.load(req.key), freshness);
  if (seen.hit) return loadedFromHit(seen.hit, req.locator.kind === 'address' ? req.key : seen.hit.entryKey);
  return loadUncached(ctx, req, freshness, seen);
}

/**
 * A miss (nothing cached, or too old for this lookup: `seen.previous`): wait for a slot of the
 * request, then resolve the address (if any) and read live.
 */
async function loadUncached(ctx: RequestContext, req: HomeRequest, freshness: Freshness, seen: Seen): Promise<Loaded> {
  const { config } = ctx.deps;
  const { locator } = req;
  if (!config.liveLookupsEnabled) throw new LookupError('live_lookups_disabled');
  if (ctx.cacheOnly) throw new LookupError('live_lookups_disabled', { details: { reason: 'cache_only' } });
  if (locator.kind === 'address') {
    const memo = await ctx.deps.store.getMemo(req.key);
    if (memo)
      throw new LookupError('address_ambiguous', {
        message: memo.message,
        ...(memo.details ? { details: memo.details } : {}),
      });
  }
  const release = await ctx.limiter.acquire(ctx.deadline ?? undefined).catch(() => {
    throw new LookupError('batch_deadline', { details: { reason: 'not started before the deadline' } });
  });
  try {
    throwIfAborted(ctx);
    if (locator.kind === 'address') return await lookupAddress(ctx, req, locator, freshness, seen);
    return await liveLookup(ctx, { homeKey: req.key, target: targetOf(locator), options: req.options, freshness });
  } finally {
    release();
  }
}

/** The page a zpid or a link names (a building link: the building's page, no zpid asked for). */
const targetOf = (locator: Exclude<Locator, { kind: 'address' }>): ReadTarget =>
  locator.kind === 'url' && locator.target === 'building'
    ? { path: locator.path, zpid: null, building: true }
    : { path: locator.path, zpid: locator.zpid, building: false };

/**
 * An address not known, or whose home is too old for this lookup: resolved again (paid), then read.
 * When the resolution itself fails (the site blocked it, say), the home the address last led to
 * (`seen.previous`, through its alias) stands in for it as a stale answer.
 */
async function lookupAddress(
  ctx: RequestContext,
  req: HomeRequest,
  locator: Extract<Locator, { kind: 'address' }>,
  freshness: Freshness,
  seen: Seen,
): Promise<Loaded> {
  const { store, collector, clock, config } = ctx.deps;
  // Reserved before resolving: resolving can start the fallback provider's paid read, and an account
  // that cannot pay gets no lookup at all.
  const reservation = await reserve(ctx, req.key);
  let handedOver = false;
  try {
    const readCtx = readContextFor(ctx, req.options, clock());
    let resolved;
    // Resolving reads upstream (the suggestion endpoint, or the fallback provider): a live slot while it does.
    const releaseLive = await holdLiveSlot(ctx);
    try {
      resolved = await timeUpstream(
        ctx.stats,
        collector.resolveAddress(
          { input: locator.input, normalized: locator.normalized, parts: locator.parts },
          readCtx,
        ),
      );
    } catch (e) {
      const err = toLookupError(e);
      if (err.code === 'address_ambiguous')
        await store.putMemo(addressKey(locator.normalized), err.toBody(), ttlFor(config, 'ambiguity'));
      const stale = await standIn(ctx, err, req.options, req.key, seen.previous, req.key);
      if (stale) return stale;
      throw err;
    } finally {
      releaseLive();
    }
    throwIfAborted(ctx);
    const homeKey = zpidKey(resolved.zpid);
    // The home may already be cached under its zpid (looked up before by link or zpid).
    const { hit, previous } = await readHome(store, homeKey, req.options.raw, freshness);
    if (hit) {
      await putAliasOrLog(ctx, req.key, hit.entryKey);
      return loadedFromHit(hit, req.key);
    }
    handedOver = true;
    const loaded = await liveLookup(ctx, {
      homeKey,
      reportAs: req.key,
      aliasKey: req.key,
      target: { path: resolved.path, zpid: resolved.zpid, building: false },
      options: req.options,
      freshness,
      previous,
      reservation,
      ...(resolved.collected ? { prefetched: resolved.collected } : {}),
    });
    // A home this request read has its alias already (written before the charge); one read by another is a hit.
    if (loaded.cached) await putAliasOrLog(ctx, req.key, loaded.entryKey);
    return loaded;
  } finally {
    if (!handedOver) await release(ctx, reservation);
  }
}
