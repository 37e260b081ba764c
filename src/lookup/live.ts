// A live lookup: reserve → single flight → read → cache → commit (or release on any failure); the
// reserving, committing and releasing are billing.ts's. Reservations and locks are leases renewed while
// this process lives (holdings.ts).
import {
  isAskerOnly,
  isStaleEligible,
  LookupError,
  toLookupError,
  type LookupOptions,
  type PortalProperty,
} from '../contract/index.js';
import type { Collected, ReadTarget } from '../collector/types.js';
import { missingCoreFields } from '../collector/mapping/sections.js';
import { hasFailedSection } from '../contract/sections.js';
import type { CacheEntry, LockRef } from '../store/index.js';
import { holdLiveSlot } from './live-slot.js';
import { loadedFromHit, readHome, readLastGood } from './cache.js';
import { isFresh, isKept, ttlFor, type Freshness } from './cache-policy.js';
import { changesBetween, unreadFields } from './changes.js';
import { holdingsOf, type Holdings } from './holdings.js';
import { recordRead } from './history.js';
import { timeUpstream } from '../observability/request-stats.js';
import { sourceOf } from '../observability/instrument.js';
import { lastGoodKey, lockKey, rawFlightKey, zpidKey } from './keys.js';
import { commit, CreditWait, HeldInFlight, release, reserveOnce, type Reservation } from './billing.js';
import { aborted, deadlineError, readContextFor, sleep, throwIfAborted } from './deadline.js';
import type { CacheHit, Loaded, RequestContext } from './types.js';

export interface LiveRequest {
  /** The key this home is known by before the read (`zpid:…`, `bldg:…`, `addr:…`). */
  homeKey: string;
  /** Reported as meta.cache_key; defaults to the key the entry is stored under. */
  reportAs?: string;
  /** The address key to point at the home once read (`addr:…`), written before the charge. */
  aliasKey?: string;
  target: ReadTarget;
  options: LookupOptions;
  /** What this lookup accepts as a hit: from the cache, another reader's flight or another instance's read. */
  freshness: Freshness;
  /** The entry the caller found too old (the earlier snapshot), when it read one; read again under the lock. */
  previous?: CacheHit | null;
  /** Already read while resolving the address (the fallback provider does both in one paid run). */
  prefetched?: Collected;
  /** A reservation the caller already holds; liveLookup owns it from then on (uses or releases it). */
  reservation?: Reservation;
}

const POLL_MS = 150;

const holdings = (ctx: RequestContext): Holdings =>
  holdingsOf(ctx.deps.store, ctx.deps.config.leaseTtlMs, ctx.deps.logger);

/**
 * The last good record of `homeKey` (still within its cache lifetime plus STALE_TTL_MS) answering for
 * a read that failed with `e`, or null: then `e` is the answer. Read again now (another reader's
 * write counts; an incomplete read's entry gives way to the complete one it replaced), `previous`
 * when the store cannot say. Free (the caller's reservation is released), cached as nothing.
 */
export async function standIn(
  ctx: RequestContext,
  e: unknown,
  options: LookupOptions,
  homeKey: string,
  previous: CacheHit | null | undefined,
  reportAs?: string,
): Promise<Loaded | null> {
  if (options.stale === false || aborted(ctx)) return null;
  const code = toLookupError(e).code;
  // What a stale answer may stand in for: the error table's `stale` column. Never the client's own
  // abort or the request's deadline (aborted), nor an answer about the home (not_found, …).
  if (!isStaleEligible(code)) return null;
  const kept = (await readLastGood(ctx.deps.store, homeKey).catch(() => null)) ?? previous;
  // A record with a section we could not read is not a last good record (docs/sections.md).
  if (
    !kept ||
    hasFailedSection(kept.entry.sections) ||
    !isKept(ctx.deps.config, kept.entry, ctx.deps.clock().getTime())
  )
    return null;
  return {
    ...loadedFromHit({ entry: kept.entry, entryKey: kept.entryKey }, reportAs ?? kept.entryKey),
    staleReason: code,
  };
}

/**
 * Reads a home that is not cached (or too old for this lookup), once per home across requests and
 * instances; when the read fails, the last good record may answer instead (standIn).
 */
export async function liveLookup(ctx: RequestContext, req: LiveRequest): Promise<Loaded> {
  try {
    return await readOnce(ctx, req);
  } catch (e) {
    const stale = await standIn(ctx, e, req.options, req.homeKey, req.previous, req.reportAs);
    if (stale) return stale;
    throw e;
  }
}

async function readOnce(ctx: RequestContext, req: LiveRequest): Promise<Loaded> {
  const { flights } = ctx.deps;
  let held = req.reservation;
  const take = (): Reservation | undefined => {
    const r = held;
    held = undefined;
    return r;
  };
  const credits = new CreditWait(ctx);
  try {
    for (;;) {
      // A raw=true read follows only a flight that reads the raw record too.
      const flight = req.options.raw ? rawFlightKey(req.homeKey) : req.homeKey;
      const running = flights.join<Loaded>(flight);
      if (!running) {
        try {
          return await flights.lead(flight, () => leadAcrossInstances(ctx, req, take));
        } catch (e) {
          if (!(e instanceof HeldInFlight)) throw e;
          // Waited for outside the flight and the lock: other accounts asking for this home go on.
          await credits.next(e);
          continue;
        }
      }
      try {
        const theirs = await running;
        // A read that began before this lookup allowed (max_age): read again, leading if need be.
        if (isFresh(theirs.entry, req.freshness)) return asFollower(theirs, req);
      } catch (e) {
        if (aborted(ctx) || !notOurs(e)) throw e;
      }
    }
  } finally {
    if (held) await release(ctx, held);
  }
}

// A leader's failure that says nothing about this request: its client left, its deadline passed,
// or its own account could not pay (the error table's `askerOnly` column). The follower then tries
// again, leading if need be.
function notOurs(e: unknown): boolean {
  if (e instanceof HeldInFlight) return true;
  const le = toLookupError(e);
  // The leader's key had no live slot left: a follower of another request (or key) reads, or follows, anew.
  const liveCap = le.code === 'rate_limited' && le.details?.limit === 'live_lookups';
  return isAskerOnly(le.code) || liveCap || (le.code === 'upstream_timeout' && le.details?.reason === 'client_closed');
}

async function leadAcrossInstances(
  ctx: RequestContext,
  req: LiveRequest,
  take: () => Reservation | undefined,
): Promise<Loaded> {
  const { store, config } = ctx.deps;
  const token = ctx.deps.newId();
  const lock = lockKey(req.homeKey);
  // A live holder finishes within the lookup timeout; a crashed one's lock lapses within the lease.
  const waitUntil = Date.now() + config.lookupTimeoutMs + config.leaseTtlMs;
  for (;;) {
    throwIfAborted(ctx);
    if (await store.tryLock(lock, token, config.leaseTtlMs)) {
      holdings(ctx).holdLock(lock, token);
      try {
        // The previous holder may have cached the home just before letting go of the lock.
        const { hit, previous } = await readHome(store, req.homeKey, req.options.raw, req.freshness);
        if (hit) return loadedFromHit(hit, req.reportAs ?? hit.entryKey);
        // This lookup reads: it holds one of the key's live slots from here (a home its address's
        // resolution already read, prefetched, is not read again).
        const releaseLive = req.prefetched ? () => undefined : await holdLiveSlot(ctx);
        try {
          return await readAndCharge(
            ctx,
            req,
            take() ?? (await reserveOnce(ctx, req.homeKey)),
            { key: lock, token },
            previous ?? req.previous ?? null,
          );
        } finally {
          releaseLive();
        }
      } finally {
        holdings(ctx).dropLock(lock, token);
        await store.unlock(lock, token).catch(() => undefined);
      }
    }
    // Another instance is reading this home: its result arrives in the cache.
    const { hit } = await readHome(store, req.homeKey, req.options.raw, req.freshness);
    if (hit) return loadedFromHit(hit, req.reportAs ?? hit.entryKey);
    if (Date.now() > waitUntil)
      throw new LookupError('upstream_timeout', { details: { reason: 'waited for another instance' } });
    await sleep(POLL_MS, ctx);
  }
}

/**
 * Reads the home live, caches it (with what changed since `previous`, the earlier snapshot), adds the
 * read to the home's history and charges it.
 */
async function readAndCharge(
  ctx: RequestContext,
  req: LiveRequest,
  reservation: Reservation,
  lock: LockRef,
  previous: CacheHit | null,
): Promise<Loaded> {
  const { store, config, collector, clock } = ctx.deps;
  const now = clock();
  // Once a commit has been sent it may have been applied, so the reservation is no longer ours to release.
  let commitSent = false;
  try {
    const collected =
      req.prefetched ??
      (await timeUpstream(ctx.stats, collector.read(req.target, readContextFor(ctx, req.options, now))).catch(
        (e: unknown) => {
          throw aborted(ctx) ? deadlineError(ctx, e) : e;
        },
      ));

    // A different home than asked for is cached under its own zpid only, never under the one asked for.
    // A building stays under its link's key: its page's zpid can be one of its units' zpids.
    const entryKey = collected.zpid && !req.target.building ? zpidKey(collected.zpid) : req.homeKey;
    // The earlier snapshot of this home (of another one when the site answered with another: read its own).
    const prior =
      previous?.entryKey === entryKey
        ? previous.entry
        : entryKey === req.homeKey
          ? null
          : ((await store.getEntries([entryKey]))[0] ?? null);
    const entry: CacheEntry = {
      record: JSON.stringify(collected.property),
      fetchedAt: collected.property.scrapedAt ?? now.toISOString(),
      source: collected.source,
      zpid: collected.zpid,
      sections: collected.sections,
      storedAt: now.getTime(),
      readBy: reservation.id,
      ...(prior
        ? {
            changes: changesBetween(
              JSON.parse(prior.record) as PortalProperty,
              collected.property,
              unreadFields(prior.sections, collected.sections),
            ),
            previousFetchedAt: prior.fetchedAt,
          }
        : {}),
    };
    const asked = req.target.zpid;
    const warning =
      asked && collected.zpid && asked !== collected.zpid
        ? `The listing site answered zpid ${asked} with a different property (zpid ${collected.zpid}); that property is returned, billed and cached under its own zpid.`
        : undefined;

    // A holder whose lock lapsed (its renewals did not reach the store in time) may have been overtaken:
    // a home another instance read and cached meanwhile is served from there, not read and charged twice.
    if (await lockLost(ctx, lock)) {
      const { hit: theirs } = await readHome(store, entryKey, req.options.raw, req.freshness);
      if (theirs) return loadedFromHit(theirs, req.reportAs ?? theirs.entryKey);
    }

    // Cache before charging: once the charge may be recorded, the home can always be served.
    const rawJson =
      collected.rawJson ??
      (collected.raw === undefined || collected.raw === null ? null : JSON.stringify(collected.raw));
    // A section the page held and we could not read (docs/sections.md): the record is
    // cached only briefly, and billed only with its core fields; without them it is answered free and
    // not cached (the reservation is released below).
    const incomplete = hasFailedSection(collected.sections);
    if (incomplete && missingCoreFields(collected.property, req.target.building).length > 0) {
      return { entry, entryKey, cacheKey: req.reportAs ?? entryKey, cached: false, credits: 0, rawJson };
    }
    if (incomplete) {
      // The complete entry it replaces stays the home's last good record (stale answers), beside it.
      if (prior && !hasFailedSection(prior.sections)) await keepLastGood(ctx, entryKey, prior, now.getTime());
      // A hit for INCOMPLETE_TTL_MS (isFresh); its text kept as long as a complete one's, as the earlier snapshot of change hints.
      await store.putEntry(entryKey, entry, rawJson, ttlFor(config, 'incomplete'), ttlFor(config, 'kept'));
    } else await store.putEntry(entryKey, entry, rawJson, ttlFor(config, 'home'), ttlFor(config, 'kept'));
    if (entryKey !== req.homeKey && !req.homeKey.startsWith('zpid:')) {
      await store.putAlias(req.homeKey, entryKey, ttlFor(config, 'alias'));
    }
    // Before the charge, so nothing after it can fail; the home is served without it (the next
    // lookup of the address resolves it again).
    if (req.aliasKey) await putAliasOrLog(ctx, req.aliasKey, entryKey);
    // The read's event in the home's history (docs/history.md), beside its record: never on a hit.
    await recordRead(ctx, entryKey, entry, collected.property);
    commitSent = true;
    const charged = await commit(ctx, reservation, entryKey, sourceOf(collected.source.provider));
    const loaded: Loaded = {
      entry,
      entryKey,
      cacheKey: req.reportAs ?? entryKey,
      cached: false,
      credits: charged ? 1 : 0,
      rawJson,
    };
    return warning && charged ? { ...loaded, warning } : loaded;
  } finally {
    if (!commitSent) await release(ctx, reservation);
  }
}

/** A complete entry an incomplete read replaces, kept under lastGoodKey for what is left of its keep. */
async function keepLastGood(ctx: RequestContext, entryKey: string, good: CacheEntry, now: number): Promise<void> {
  const left = good.storedAt + ttlFor(ctx.deps.config, 'kept') - now;
  if (left > 0) await ctx.deps.store.putEntry(lastGoodKey(entryKey), good, null, left);
}

/** True when the store says this holder no longer holds its lock (renewing it is the check); unknown counts as held. */
async function lockLost(ctx: RequestContext, lock: LockRef): Promise<boolean> {
  const lost = await ctx.deps.store.renewLocks([lock], ctx.deps.config.leaseTtlMs).catch(() => []);
  return lost.length > 0;
}

/** An address alias is a shortcut, never a reason to fail a home that is read: a failed write is logged. */
export async function putAliasOrLog(ctx: RequestContext, aliasKey: string, entryKey: string): Promise<void> {
  await ctx.deps.store
    .putAlias(aliasKey, entryKey, ttlFor(ctx.deps.config, 'alias'))
    .catch((err: unknown) =>
      ctx.logger.warn({ err, aliasKey, entryKey }, 'address alias not written; the home is served without it'),
    );
}

/** Someone else's read of the same home, served as a cache hit. */
const asFollower = (leader: Loaded, req: LiveRequest): Loaded => loadedFromHit(leader, req.reportAs ?? leader.cacheKey);
