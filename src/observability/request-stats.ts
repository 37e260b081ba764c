// What one request did, gathered as it runs, for its log line and its RateLimit header: the core
// records each lookup's outcome here (and in the metrics) once, below both faces; the faces only
// read it when they answer.
import type { RateWindow } from '../contract/rate-limit.js';
import type { Sections } from '../contract/sections.js';
import type { ServiceMetrics, CacheLabel, LookupSourceLabel } from './metrics.js';
import { sourceOf } from './instrument.js';

export class RequestStats {
  /** The account's id once its key is known (never the key). */
  account: string | null = null;
  /** The core's own id of the request (the ledger's `request`), once it has a context. */
  coreRequestId: string | null = null;
  lookups = 0;
  hits = 0;
  misses = 0;
  credits = 0;
  /** Time spent reading the listing site or the provider for this request's own live reads. */
  upstreamMs = 0;
  /** Where served homes came from: own collector, fallback provider (flags: no Set made per request). */
  private ownSource = false;
  private fallbackSource = false;
  /** The code of the first failed lookup, or of the request's own error. */
  errorCode: string | null = null;
  /** The codes of every failed lookup (an idempotent run's answer with a transient one is not kept). */
  readonly failedCodes = new Set<string>();
  /** The account's rate window after this request took its units (the RateLimit header). */
  rate: RateWindow | null = null;

  /** hit, miss, mixed (both) or null when nothing was looked up. */
  get cache(): 'hit' | 'miss' | 'mixed' | null {
    if (this.hits > 0 && this.misses > 0) return 'mixed';
    return this.hits > 0 ? 'hit' : this.misses > 0 ? 'miss' : null;
  }

  get source(): 'self_hosted' | 'fallback' | 'fallback+self_hosted' | null {
    if (this.ownSource && this.fallbackSource) return 'fallback+self_hosted';
    return this.ownSource ? 'self_hosted' : this.fallbackSource ? 'fallback' : null;
  }

  servedFrom(source: 'self_hosted' | 'fallback'): void {
    if (source === 'self_hosted') this.ownSource = true;
    else this.fallbackSource = true;
  }

  /** Notes the first error code the request met. */
  failed(code: string): void {
    this.errorCode ??= code;
    this.failedCodes.add(code);
  }

  /** The request itself was answered with an error: that code is the line's. */
  answered(code: string): void {
    this.errorCode = code;
  }
}

/**
 * A found home: counted once per consumer (a batch item, a GraphQL field), as the client sees it, in the
 * metrics and the public figures (in process: a cache hit makes no store call for them).
 */
export function recordFound(
  metrics: ServiceMetrics | undefined,
  stats: RequestStats | undefined,
  found: { cached: boolean; credits: number; provider: string; stale?: boolean; sections?: Sections },
): void {
  const source = sourceOf(found.provider);
  const cache: CacheLabel = found.stale ? 'stale' : found.cached ? 'hit' : 'miss';
  metrics?.lookups.inc({ code: 'ok', source, cache });
  metrics?.tally.found({
    cached: found.cached,
    stale: found.stale === true,
    source,
    ...(found.sections ? { sections: found.sections } : {}),
  });
  if (found.credits > 0) metrics?.creditsBilled.inc(found.credits);
  if (!stats) return;
  stats.lookups += 1;
  if (found.cached) stats.hits += 1;
  else stats.misses += 1;
  stats.credits += found.credits;
  stats.servedFrom(source);
}

/** A failed lookup: its code; never billed. */
export function recordFailed(metrics: ServiceMetrics | undefined, stats: RequestStats | undefined, code: string): void {
  const source: LookupSourceLabel = 'none';
  metrics?.lookups.inc({ code, source, cache: 'miss' });
  metrics?.tally.failed(code);
  if (!stats) return;
  stats.lookups += 1;
  stats.failed(code);
}

/** Measures an upstream call made for this request (its own live read, not another reader's flight). */
export async function timeUpstream<T>(stats: RequestStats | undefined, run: Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await run;
  } finally {
    if (stats) stats.upstreamMs += performance.now() - started;
  }
}
