// A live lookup: reserve → single flight → read → cache → commit (or release on any failure).
import { LookupError, toLookupError, type LookupOptions } from '../contract/index.js';
import type { Collected, ReadTarget } from '../collector/types.js';
import { refusal, reserveRequest } from '../accounts/index.js';
import type { CacheEntry } from '../store/index.js';
import { readCache } from './cache.js';
import type { RequestContext } from './context.js';
import { lockKey, zpidKey } from './keys.js';

export interface Loaded {
  entry: CacheEntry;
  /** The key the entry is stored under: the home's identity within a request. */
  entryKey: string;
  /** The key reported to the client (`meta.cache_key`). */
  cacheKey: string;
  cached: boolean;
  credits: 0 | 1;
  warning?: string;
}

export interface LiveRequest {
  /** The key this home is known by before the read (`zpid:…`, `bldg:…`, `addr:…`). */
  homeKey: string;
  /** Reported as meta.cache_key; defaults to the key the entry is stored under. */
  reportAs?: string;
  target: ReadTarget;
  options: LookupOptions;
  /** Already read while resolving the address (the fallback provider does both in one paid run). */
  prefetched?: Collected;
}

const POLL_MS = 150;

/** Reads a home that is not cached, once per home across requests and instances. */
export async function liveLookup(ctx: RequestContext, req: LiveRequest): Promise<Loaded> {
  const { flights } = ctx.deps;
  for (;;) {
    const running = flights.join<Loaded>(req.homeKey);
    if (!running) return flights.lead(req.homeKey, () => leadAcrossInstances(ctx, req));
    try {
      return asFollower(await running, req);
    } catch (e) {
      // A leader stopped by its own client or deadline says nothing about this request: try again.
      if (!isAbort(e) || aborted(ctx)) throw e;
    }
  }
}

async function leadAcrossInstances(ctx: RequestContext, req: LiveRequest): Promise<Loaded> {
  const { store, config } = ctx.deps;
  const token = ctx.deps.newId();
  const lock = lockKey(req.homeKey);
  const ttl = config.lookupTimeoutMs + 10_000;
  const waitUntil = Date.now() + ttl;
  for (;;) {
    throwIfAborted(ctx);
    if (await store.tryLock(lock, token, ttl)) {
      try {
        return await readAndCharge(ctx, req);
      } finally {
        await store.unlock(lock, token).catch(() => undefined);
      }
    }
    // Another instance is reading this home: its result arrives in the cache.
    const [hit] = await readCache(store, [req.homeKey]);
    if (hit) return asFollower({ entry: hit.entry, entryKey: hit.entryKey, cacheKey: req.reportAs ?? hit.entryKey, cached: true, credits: 0 }, req);
    if (Date.now() > waitUntil) throw new LookupError('upstream_timeout', { details: { reason: 'waited for another instance' } });
    await sleep(POLL_MS, ctx);
  }
}

async function readAndCharge(ctx: RequestContext, req: LiveRequest): Promise<Loaded> {
  const { store, config, collector, clock } = ctx.deps;
  const now = clock();
  const reservationId = ctx.deps.newId();
  const reserved = await store.reserve(reserveRequest(ctx.account, config, now, reservationId));
  if (!reserved.ok) throw refusal(reserved, ctx.account, config, now);

  let committed = false;
  try {
    const signals = [ctx.signal, AbortSignal.timeout(config.lookupTimeoutMs)];
    if (ctx.deadline) signals.push(ctx.deadline);
    const readCtx = { signal: AbortSignal.any(signals), now, ...(req.options.status ? { status: req.options.status } : {}) };
    const collected = req.prefetched ?? (await collector.read(req.target, readCtx).catch((e: unknown) => {
      throw aborted(ctx) ? deadlineError(ctx, e) : e;
    }));

    const entry: CacheEntry = {
      record: collected.property,
      raw: collected.raw,
      fetchedAt: collected.property.scrapedAt ?? now.toISOString(),
      source: collected.source,
      zpid: collected.zpid,
    };
    // A different home than asked for is cached under its own zpid only, never under the one asked for.
    // A building stays under its link's key: its page's zpid can be one of its units' zpids.
    const entryKey = collected.zpid && !req.target.building ? zpidKey(collected.zpid) : req.homeKey;
    const asked = req.target.zpid;
    const warning =
      asked && collected.zpid && asked !== collected.zpid
        ? `The listing site answered zpid ${asked} with a different property (zpid ${collected.zpid}); that property is returned, billed and cached under its own zpid.`
        : undefined;

    // Cache before charging: if the charge cannot be recorded the client gets an error and is not
    // billed, and the next lookup of this home is a free hit rather than a second upstream read.
    await store.putEntry(entryKey, entry, config.cacheTtlMs);
    if (entryKey !== req.homeKey && !req.homeKey.startsWith('zpid:')) {
      await store.putAlias(req.homeKey, entryKey, config.cacheTtlMs);
    }
    committed = await store.commit({
      reservationId,
      accountId: ctx.account.id,
      cacheKey: entryKey,
      requestId: ctx.requestId,
      kind: reserved.kind,
      at: clock().toISOString(),
    });
    if (!committed) throw new LookupError('internal', { message: 'The charge could not be recorded.' });
    return { entry, entryKey, cacheKey: req.reportAs ?? entryKey, cached: false, credits: 1, ...(warning ? { warning } : {}) };
  } finally {
    if (!committed) await store.release(reservationId).catch((e: unknown) => ctx.logger.warn({ err: e, reservationId }, 'release failed; the sweep will return it'));
  }
}

/** Someone else's read of the same home, served as a cache hit. */
const asFollower = (leader: Loaded, req: LiveRequest): Loaded => ({
  ...leader,
  cacheKey: req.reportAs ?? leader.cacheKey,
  cached: true,
  credits: 0,
});

export const aborted = (ctx: RequestContext): boolean => ctx.signal.aborted || (ctx.deadline?.aborted ?? false);

function deadlineError(ctx: RequestContext, cause: unknown): LookupError {
  if (ctx.deadline?.aborted) return new LookupError('batch_deadline', { cause, details: { reason: 'aborted at the deadline' } });
  return new LookupError('upstream_timeout', { cause, details: { reason: 'client_closed' } });
}

function isAbort(e: unknown): boolean {
  const le = toLookupError(e);
  return le.code === 'batch_deadline' || (le.code === 'upstream_timeout' && le.details?.reason === 'client_closed');
}

export function throwIfAborted(ctx: RequestContext): void {
  if (aborted(ctx)) throw deadlineError(ctx, undefined);
}

function sleep(ms: number, ctx: RequestContext): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    const signals = [ctx.signal, ctx.deadline].filter((s): s is AbortSignal => s !== null);
    function done() {
      clearTimeout(t);
      for (const s of signals) s.removeEventListener('abort', done);
      resolve();
    }
    for (const s of signals) s.addEventListener('abort', done, { once: true });
  });
}
