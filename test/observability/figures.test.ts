// The public figures' arithmetic (src/observability/figures.ts): the buckets a window reads cover it exactly,
// the windows sum what instances wrote to a shared store over time, and p50/p95 come from the summed buckets.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { FigureTally } from '../../src/observability/figure-tally.js';
import {
  breakerSummary,
  latencyQuantile,
  PublicFigures,
  windowBuckets,
  windowFigures,
} from '../../src/observability/figures.js';
import { MemoryStore } from '../../src/store/index.js';

/** The minutes a list of buckets covers. */
const minutesOf = (buckets: string[]): number[] =>
  buckets.flatMap((b) => {
    const n = Number(b.slice(2));
    return b.startsWith('h:') ? Array.from({ length: 60 }, (_, i) => n * 60 + i) : [n];
  });

describe('windowBuckets', () => {
  it.each([0, 1, 59, 60, 61, 119, 1_000_000, 29_123_457])(
    'covers exactly the last 60 and 1440 minutes up to minute %i',
    (now) => {
      for (const minutes of [60, 1440]) {
        const covered = minutesOf(windowBuckets(now, minutes));
        expect(covered).toEqual(Array.from({ length: minutes }, (_, i) => now - minutes + 1 + i));
      }
      // The day is read mostly from hour buckets: at most 24 of them and 119 minutes.
      expect(windowBuckets(now, 1440).length).toBeLessThanOrEqual(24 + 119);
    },
  );
});

describe('latencyQuantile and windowFigures', () => {
  it('reads p50/p95 from the summed fixed buckets; shares of found homes; errors by code', () => {
    const tally = new FigureTally();
    for (let i = 0; i < 90; i++) tally.read(400); // the (250, 500] bucket
    for (let i = 0; i < 10; i++) tally.read(9_000); // the (7500, 10000] bucket
    const counts = tally.take();
    expect(latencyQuantile(counts, 0.5)).toBeGreaterThan(250);
    expect(latencyQuantile(counts, 0.5)).toBeLessThanOrEqual(500);
    expect(latencyQuantile(counts, 0.95)).toBeGreaterThan(7_500);
    expect(latencyQuantile(counts, 0.95)).toBeLessThanOrEqual(10_000);
    expect(latencyQuantile({}, 0.5)).toBeNull();
    // Slower than the last bound: its lower bound.
    tally.read(120_000);
    expect(latencyQuantile(tally.take(), 0.95)).toBe(60_000);

    tally.found({ cached: true, stale: false, source: 'self_hosted' });
    tally.found({ cached: false, stale: false, source: 'self_hosted' });
    tally.found({ cached: false, stale: false, source: 'fallback' });
    tally.found({ cached: true, stale: true, source: 'fallback' });
    tally.failed('not_found');
    tally.failed('not_found');
    tally.failed('bad_param');
    tally.attempt(true);
    tally.attempt(false);
    const w = windowFigures(60, tally.take());
    expect(w).toMatchObject({
      minutes: 60,
      lookups: 7,
      found: 4,
      served: { own_collector: 0.25, fallback: 0.25, cache: 0.25, stale: 0.25 },
      site_attempts: { count: 2, walled_share: 0.5 },
      records: { count: 2 },
      errors: { total: 3, by_code: { not_found: 2, bad_param: 1 } },
      live_reads: { count: 0, p50_ms: null, p95_ms: null },
    });
    expect(windowFigures(60, {}).served.cache).toBeNull();
  });

  it('breakerSummary: open when any instance has it open, closed when any runs one, else none', () => {
    expect(breakerSummary(['closed', 'open', 'none'])).toEqual({ state: 'open', instances: 3, open: 1 });
    expect(breakerSummary(['closed', 'none'])).toEqual({ state: 'closed', instances: 2, open: 0 });
    expect(breakerSummary([])).toEqual({ state: 'none', instances: 0, open: 0 });
    expect(breakerSummary(['none', 'garbage'])).toEqual({ state: 'none', instances: 1, open: 0 });
  });
});

describe('PublicFigures over one store', () => {
  it('sums what two instances wrote, keeps the last hour and the last 24 hours apart, and forgets what is older', async () => {
    let now = Date.UTC(2026, 4, 1, 10, 30);
    const clock = () => new Date(now);
    const store = new MemoryStore(() => now);
    const logger = pino({ level: 'silent' });
    const make = (open: boolean | null) => {
      const tally = new FigureTally();
      return {
        tally,
        figures: new PublicFigures({ store, tally, clock, breaker: () => (open === null ? null : { open }), logger }),
      };
    };
    const a = make(false);
    const b = make(null);
    try {
      a.tally.found({ cached: true, stale: false, source: 'self_hosted' });
      b.tally.failed('not_found');
      await Promise.all([a.figures.flush(), b.figures.flush()]);
      // Two hours on (across hour boundaries): out of the last hour, still in the last 24 hours.
      now += 2 * 3_600_000 + 17 * 60_000;
      b.tally.found({ cached: false, stale: false, source: 'fallback' });
      await b.figures.flush();
      await a.figures.flush();
      const s = await a.figures.status();
      expect(s.last_hour).toMatchObject({ lookups: 1, found: 1, served: { fallback: 1 } });
      expect(s.last_24_hours).toMatchObject({ lookups: 3, found: 2, errors: { by_code: { not_found: 1 } } });
      expect(s.breaker).toEqual({ state: 'closed', instances: 2, open: 0 });
      // A day and a bit later, the two instances gone quiet: nothing counts, and only the reader reports.
      now += 25 * 3_600_000;
      await store.sweep();
      const later = new PublicFigures({ store, tally: new FigureTally(), clock, breaker: () => null, logger });
      const old = await later.status();
      await later.close();
      expect(old.last_24_hours.lookups).toBe(0);
      expect(old.breaker).toEqual({ state: 'none', instances: 1, open: 0 });
    } finally {
      await a.figures.close();
      await b.figures.close();
    }
  });
});
