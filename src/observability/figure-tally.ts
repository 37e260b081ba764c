// What this instance counted for the public figures since its last flush (src/observability/figures.ts):
// plain counts in one object, so recording is a property increment on every path (a cache hit included)
// and never a store call. Counts only: nothing about who asked or which home.
import { hasFailedSection, type Sections } from '../contract/sections.js';
import type { FigureCounts } from '../store/index.js';

/**
 * Upper bounds (ms) of the live-read latency buckets; one more bucket holds the slower reads. Fixed, so the
 * buckets of every instance and minute add up, and p50/p95 are read from the sums.
 */
export const LATENCY_BOUNDS_MS = [
  100, 250, 500, 750, 1_000, 1_500, 2_000, 3_000, 4_000, 5_000, 7_500, 10_000, 15_000, 20_000, 30_000, 60_000,
] as const;

/** The fields of a bucket (short: every instance writes them each few seconds). */
export const FIELD = {
  /** Lookups found; of them: from the cache, stale, read live by the own collector, by the fallback. */
  found: 'ok',
  hit: 'hit',
  stale: 'stale',
  own: 'own',
  fallback: 'fb',
  /** Records read live, and those with every section read. */
  records: 'rec',
  complete: 'full',
  /** Live reads, and their latency bucket `lat:<index>`. */
  reads: 'reads',
  latency: 'lat:',
  /** The own collector's requests to the site, and those the bot wall refused. */
  attempts: 'att',
  walled: 'wall',
  /** Failed lookups by code: `e:<code>`. */
  error: 'e:',
} as const;

export class FigureTally {
  private counts: FigureCounts = {};

  private add(field: string): void {
    this.counts[field] = (this.counts[field] ?? 0) + 1;
  }

  /** A found home, counted once per consumer as lookups_total counts it. */
  found(found: { cached: boolean; stale: boolean; source: 'self_hosted' | 'fallback'; sections?: Sections }): void {
    this.add(FIELD.found);
    if (found.stale) return this.add(FIELD.stale);
    if (found.cached) return this.add(FIELD.hit);
    this.add(found.source === 'self_hosted' ? FIELD.own : FIELD.fallback);
    this.add(FIELD.records);
    if (found.sections && !hasFailedSection(found.sections)) this.add(FIELD.complete);
  }

  /** A failed lookup, by its code (a code of the error table, or internal). */
  failed(code: string): void {
    this.add(FIELD.error + code);
  }

  /** A live read of a page, whatever its outcome. */
  read(ms: number): void {
    this.add(FIELD.reads);
    let i = LATENCY_BOUNDS_MS.findIndex((bound) => ms <= bound);
    if (i < 0) i = LATENCY_BOUNDS_MS.length;
    this.add(FIELD.latency + i);
  }

  /** A request of the own collector to the site; walled: the bot wall refused it. */
  attempt(walled: boolean): void {
    this.add(FIELD.attempts);
    if (walled) this.add(FIELD.walled);
  }

  /** The counts since the last take, and a fresh start. */
  take(): FigureCounts {
    const taken = this.counts;
    this.counts = {};
    return taken;
  }

  /** Counts taken but not written (the store failed): kept for the next flush. */
  putBack(counts: FigureCounts): void {
    for (const [field, n] of Object.entries(counts)) this.counts[field] = (this.counts[field] ?? 0) + n;
  }
}
