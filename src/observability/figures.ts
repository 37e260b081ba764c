// The service's own public figures across all its instances (GET /v1/status, the /status page). Each
// instance counts in process (FigureTally: the core records each lookup's outcome there with its metrics,
// the measured collector each live read and site request), and every FLUSH_MS adds what it counted to the
// store's buckets of the current minute and hour (one round trip; none while nothing was counted but the
// instance's breaker state, kept INSTANCE_TTL_MS). A read sums the last 60 minute buckets, and for the last
// 24 hours the hour buckets with the minute buckets at either edge; latency percentiles come from the summed
// fixed buckets. A read is kept READ_CACHE_MS, so a flood of keyless requests costs one store read per
// instance per few seconds.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { BREAKER_STATES, STATUS_WINDOWS, type ServiceStatus, type StatusWindow } from '../contract/status.js';
import type { FigureCounts, FiguresStore } from '../store/index.js';
import { FIELD, LATENCY_BOUNDS_MS, type FigureTally } from './figure-tally.js';

export const FLUSH_MS = 5_000;
export const READ_CACHE_MS = 5_000;
/** An instance's breaker state counts this long after its last flush. */
export const INSTANCE_TTL_MS = 30_000;
const MINUTE_MS = 60_000;
const HOUR_MINUTES = 60;
/** Minute buckets outlive the 24-hour window by an hour; hour buckets by two. */
const MINUTE_TTL_MS = 25 * 3_600_000;
const HOUR_TTL_MS = 26 * 3_600_000;

const minuteBucket = (minute: number) => `m:${minute}`;
const hourBucket = (hour: number) => `h:${hour}`;

/** The buckets that cover the `minutes` minutes up to `now` (a minute since the epoch): whole hours where they fit. */
export function windowBuckets(now: number, minutes: number): string[] {
  const start = now - minutes + 1;
  if (minutes <= HOUR_MINUTES) return Array.from({ length: minutes }, (_, i) => minuteBucket(start + i));
  const firstHour = Math.ceil(start / HOUR_MINUTES);
  const endHour = Math.floor((now + 1) / HOUR_MINUTES);
  const buckets: string[] = [];
  for (let m = start; m < firstHour * HOUR_MINUTES; m++) buckets.push(minuteBucket(m));
  for (let h = firstHour; h < endHour; h++) buckets.push(hourBucket(h));
  for (let m = endHour * HOUR_MINUTES; m <= now; m++) buckets.push(minuteBucket(m));
  return buckets;
}

const sum = (counts: readonly FigureCounts[]): FigureCounts => {
  const total: FigureCounts = {};
  for (const c of counts) for (const [field, n] of Object.entries(c)) total[field] = (total[field] ?? 0) + n;
  return total;
};

const shareOf = (part: number, whole: number): number | null =>
  whole > 0 ? Math.round((part / whole) * 10_000) / 10_000 : null;

/** The q-quantile of the summed latency buckets (linear within a bucket; the slowest bucket reports its lower bound). */
export function latencyQuantile(counts: FigureCounts, q: number): number | null {
  const buckets = Array.from({ length: LATENCY_BOUNDS_MS.length + 1 }, (_, i) => counts[FIELD.latency + i] ?? 0);
  const total = buckets.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = q * total;
  let below = 0;
  for (let i = 0; i < buckets.length; i++) {
    const n = buckets[i]!;
    if (n > 0 && below + n >= rank) {
      const lower = i === 0 ? 0 : LATENCY_BOUNDS_MS[i - 1]!;
      if (i === LATENCY_BOUNDS_MS.length) return lower;
      const upper = LATENCY_BOUNDS_MS[i]!;
      return Math.round(lower + ((upper - lower) * Math.max(0, rank - below)) / n);
    }
    below += n;
  }
  return LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1]!;
}

/** One window's figures from its summed counts. */
export function windowFigures(minutes: number, c: FigureCounts): StatusWindow {
  const n = (field: string) => c[field] ?? 0;
  const byCode: Record<string, number> = {};
  let failed = 0;
  for (const [field, count] of Object.entries(c)) {
    if (!field.startsWith(FIELD.error) || count <= 0) continue;
    byCode[field.slice(FIELD.error.length)] = count;
    failed += count;
  }
  const found = n(FIELD.found);
  return {
    minutes,
    lookups: found + failed,
    found,
    served: {
      own_collector: shareOf(n(FIELD.own), found),
      fallback: shareOf(n(FIELD.fallback), found),
      cache: shareOf(n(FIELD.hit), found),
      stale: shareOf(n(FIELD.stale), found),
    },
    live_reads: {
      count: n(FIELD.reads),
      p50_ms: latencyQuantile(c, 0.5),
      p95_ms: latencyQuantile(c, 0.95),
    },
    site_attempts: { count: n(FIELD.attempts), walled_share: shareOf(n(FIELD.walled), n(FIELD.attempts)) },
    records: { count: n(FIELD.records), complete_share: shareOf(n(FIELD.complete), n(FIELD.records)) },
    errors: { total: failed, by_code: byCode },
  };
}

type BreakerState = (typeof BREAKER_STATES)[number];

/** The breakers of every instance as one: open when any is open, closed when any runs one, else none. */
export function breakerSummary(states: readonly string[]): ServiceStatus['breaker'] {
  const known = states.filter((s): s is BreakerState => (BREAKER_STATES as readonly string[]).includes(s));
  const open = known.filter((s) => s === 'open').length;
  const state: BreakerState = open > 0 ? 'open' : known.includes('closed') ? 'closed' : 'none';
  return { state, instances: known.length, open };
}

export interface PublicFiguresDeps {
  /** The store every instance shares (not the measured one: the figures' own calls are no lookup's). */
  store: FiguresStore;
  tally: FigureTally;
  clock: () => Date;
  /** This instance's breaker now: open or not; null without an own collector. */
  breaker: () => { open: boolean } | null;
  logger: Logger;
}

export class PublicFigures {
  /** This instance's id in the store (a new one each start: nothing else about the host). */
  readonly instance = randomUUID();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  private cached: { until: number; answer: Promise<ServiceStatus> } | null = null;
  private closed = false;
  /** A failed flush is logged once until one succeeds again (the store's outage is reported elsewhere). */
  private failing = false;

  constructor(private readonly deps: PublicFiguresDeps) {
    this.timer = setInterval(() => void this.flush().catch(() => undefined), FLUSH_MS);
    this.timer.unref();
  }

  /**
   * Adds what this instance counted to the store's buckets of now, and its breaker state; one after the
   * other. Counts the store did not take are kept for the next flush. Rejects with the store's error.
   */
  flush(): Promise<void> {
    const run = this.flushing.then(() => this.write());
    this.flushing = run.catch(() => undefined);
    return run;
  }

  private async write(): Promise<void> {
    const counts = this.deps.tally.take();
    const minute = Math.floor(this.deps.clock().getTime() / MINUTE_MS);
    try {
      if (Object.keys(counts).length > 0) {
        await this.deps.store.addFigures([
          { bucket: minuteBucket(minute), counts, ttlMs: MINUTE_TTL_MS },
          { bucket: hourBucket(Math.floor(minute / HOUR_MINUTES)), counts, ttlMs: HOUR_TTL_MS },
        ]);
      }
      const breaker = this.deps.breaker();
      await this.deps.store.putInstanceState(
        this.instance,
        breaker === null ? 'none' : breaker.open ? 'open' : 'closed',
        INSTANCE_TTL_MS,
      );
      this.failing = false;
    } catch (e) {
      this.deps.tally.putBack(counts);
      if (!this.failing)
        this.deps.logger.warn({ err: e }, 'public figures not written to the store (kept for the next try)');
      this.failing = true;
      throw e;
    }
  }

  /** The figures of every instance now (this one's own counts written first); one read kept READ_CACHE_MS. */
  status(): Promise<ServiceStatus> {
    // On the service's clock, as the buckets are: a test moves it past the kept read instead of waiting.
    const now = this.deps.clock().getTime();
    if (this.cached && now < this.cached.until) return this.cached.answer;
    const answer = this.read();
    this.cached = { until: now + READ_CACHE_MS, answer };
    // A failed read is not kept: the next request tries again.
    answer.catch(() => {
      if (this.cached?.answer === answer) this.cached = null;
    });
    return answer;
  }

  private async read(): Promise<ServiceStatus> {
    await this.flush().catch(() => undefined);
    const at = this.deps.clock();
    const minute = Math.floor(at.getTime() / MINUTE_MS);
    const windows = Object.entries(STATUS_WINDOWS).map(([name, minutes]) => ({
      name,
      minutes,
      buckets: windowBuckets(minute, minutes),
    }));
    const names = [...new Set(windows.flatMap((w) => w.buckets))];
    const [read, states] = await Promise.all([this.deps.store.readFigures(names), this.deps.store.instanceStates()]);
    const byName = new Map(names.map((name, i) => [name, read[i] ?? {}]));
    const figures = Object.fromEntries(
      windows.map((w) => [w.name, windowFigures(w.minutes, sum(w.buckets.map((b) => byName.get(b)!)))]),
    ) as Record<keyof typeof STATUS_WINDOWS, StatusWindow>;
    return { generated_at: at.toISOString(), ...figures, breaker: breakerSummary(states) };
  }

  /** Stops the timer and writes what is left (a store that fails loses it). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    await this.flush().catch(() => undefined);
  }
}
