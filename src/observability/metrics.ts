// The service's Prometheus metrics (prom-client). One registry per service instance: tests start
// many instances in one process, and each must count only its own work. The core records a lookup's
// outcome once (lookup.ts), below both faces; HTTP, store and upstream figures come from hooks and
// wrappers (observe.ts), so no face counts anything itself.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { FigureTally } from './figure-tally.js';

/** Where a served home came from: the own collector, the fallback provider, or nowhere (an error). */
export type LookupSourceLabel = 'self_hosted' | 'fallback' | 'none';
/**
 * hit: served from the cache (or another reader's flight); miss: read live (or failed); stale: the last
 * good record standing in for a read that failed (stale-if-blocked, meta.stale).
 */
export type CacheLabel = 'hit' | 'miss' | 'stale';

const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 60];
const STORE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
const SIZE_BUCKETS = [1, 2, 5, 10, 20, 30, 40, 50];
/**
 * Event-loop lag is reported over fixed windows, not since the previous scrape: a scrape never resets
 * it, so every scraper (two Prometheus servers, a person with curl) sees the same figures.
 */
export const LAG_WINDOW_MS = 15_000;

export interface MetricsSources {
  /** Pages waiting for a page worker now (null when the collector has no page pool). */
  pageQueue?: () => number | null;
  /** The own collector's circuit breaker now (null when there is no own collector). */
  breaker?: () => { open: boolean; failed_share: number; served_share: number } | null;
}

export class ServiceMetrics {
  readonly registry = new Registry();
  /** The public figures this instance counted since its last flush to the store (figures.ts). */
  readonly tally = new FigureTally();
  readonly httpRequests: Counter<'route' | 'method' | 'status'>;
  readonly lookups: Counter<'code' | 'source' | 'cache'>;
  readonly upstreamSeconds: Histogram<'operation' | 'provider' | 'outcome'>;
  readonly botWalls: Counter;
  readonly fallbacks: Counter<'operation'>;
  readonly creditsBilled: Counter;
  readonly batchSize: Histogram;
  readonly storeSeconds: Histogram<'command'>;
  readonly storeErrors: Counter<'command' | 'code'>;
  readonly rateLimited: Counter<'limit'>;
  readonly idempotentRequests: Counter<'outcome'>;
  readonly siteAttempts: Counter<'outcome' | 'kind'>;
  readonly siteProxyRequests: Counter;
  readonly siteProxyBytes: Counter;
  readonly canaryReads: Counter<'outcome'>;
  readonly jobChunkRuns: Counter<'outcome'>;
  private readonly loopDelay: ReturnType<typeof monitorEventLoopDelay>;
  private readonly lagWindow: NodeJS.Timeout;
  /** The last complete window's lag in seconds; null before the first window ends. */
  private lag: { p99: number; max: number } | null = null;

  constructor(sources: MetricsSources = {}) {
    const registers = [this.registry];
    this.httpRequests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by route pattern, method and status',
      labelNames: ['route', 'method', 'status'],
      registers,
    });
    this.lookups = new Counter({
      name: 'lookups_total',
      help: 'Lookups (single, batch items, GraphQL fields) by outcome code (ok or the error code), source and cache',
      labelNames: ['code', 'source', 'cache'],
      registers,
    });
    this.upstreamSeconds = new Histogram({
      name: 'upstream_read_seconds',
      help: 'Reads from the listing site or the fallback provider (read a page, resolve an address), by outcome code',
      labelNames: ['operation', 'provider', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.botWalls = new Counter({
      name: 'upstream_bot_walls_total',
      help: 'Reads of the own collector refused by the bot wall',
      registers,
    });
    this.fallbacks = new Counter({
      name: 'upstream_fallbacks_total',
      help: 'Reads handed to the fallback provider',
      labelNames: ['operation'],
      registers,
    });
    this.creditsBilled = new Counter({
      name: 'credits_billed_total',
      help: 'Credits charged (successful live lookups)',
      registers,
    });
    this.batchSize = new Histogram({
      name: 'batch_size',
      help: 'Items per batch (REST batch, GraphQL properties)',
      buckets: SIZE_BUCKETS,
      registers,
    });
    this.storeSeconds = new Histogram({
      name: 'store_command_seconds',
      help: 'Store calls (one or more Redis commands each), by store method',
      labelNames: ['command'],
      buckets: STORE_BUCKETS,
      registers,
    });
    this.storeErrors = new Counter({
      name: 'store_errors_total',
      help: 'Store calls that failed, by method and error code',
      labelNames: ['command', 'code'],
      registers,
    });
    this.rateLimited = new Counter({
      name: 'rate_limited_total',
      help: 'Requests and lookups refused by a per-key limit',
      labelNames: ['limit'],
      registers,
    });
    this.idempotentRequests = new Counter({
      name: 'idempotent_requests_total',
      help: 'Requests sent with an Idempotency-Key, by outcome: ran (answer kept), not_kept (key released), replayed, key_reused (422), key_in_use (409)',
      labelNames: ['outcome'],
      registers,
    });

    this.siteAttempts = new Counter({
      name: 'site_attempts_total',
      help: 'Requests of the own collector to the listing site, by outcome (served, wall, forbidden, rate_limited, proxy_error, timeout, connection_failed, error) and kind (document, suggest, warm_up)',
      labelNames: ['outcome', 'kind'],
      registers,
    });
    this.siteProxyRequests = new Counter({
      name: 'site_proxy_requests_total',
      help: 'Requests of the own collector sent through the proxy',
      registers,
    });
    this.siteProxyBytes = new Counter({
      name: 'site_proxy_bytes_total',
      help: 'Body bytes received through the proxy (decompressed: the wire carries fewer)',
      registers,
    });
    this.jobChunkRuns = new Counter({
      name: 'job_chunk_runs_total',
      help: 'Runs of job chunks in this process, by outcome (settled, waiting: settled in part and delayed, store_unavailable: to run again, skipped, failed: to be retried)',
      labelNames: ['outcome'],
      registers,
    });
    this.canaryReads = new Counter({
      name: 'site_canary_reads_total',
      help: 'Canary reads of the own collector alone (never billed or cached), by outcome',
      labelNames: ['outcome'],
      registers,
    });

    this.loopDelay = monitorEventLoopDelay({ resolution: 10 });
    this.loopDelay.enable();
    this.lagWindow = setInterval(() => this.closeLagWindow(), LAG_WINDOW_MS);
    this.lagWindow.unref();
    const lagNow = () => this.lag ?? this.runningLag();
    new Gauge({
      name: 'event_loop_lag_seconds',
      help: `Event-loop delay over the last complete ${LAG_WINDOW_MS / 1000} s window (p99 and max); before the first one ends, since start`,
      labelNames: ['quantile'],
      registers,
      collect() {
        const { p99, max } = lagNow();
        this.set({ quantile: '0.99' }, p99);
        this.set({ quantile: 'max' }, max);
      },
    });
    const breaker = sources.breaker;
    new Gauge({
      name: 'site_breaker_open',
      help: "1 while the own collector's circuit breaker is open (lookups go straight to the fallback provider)",
      registers,
      collect() {
        this.set(breaker?.()?.open ? 1 : 0);
      },
    });
    new Gauge({
      name: 'site_served_share',
      help: "Share of the own collector's recent requests (the breaker's window) the site answered with a page",
      registers,
      collect() {
        this.set(breaker?.()?.served_share ?? 0);
      },
    });
    new Gauge({
      name: 'site_failed_share',
      help: "Share of the own collector's recent requests (the breaker's window) refused at the site's door",
      registers,
      collect() {
        this.set(breaker?.()?.failed_share ?? 0);
      },
    });
    const pageQueue = sources.pageQueue;
    new Gauge({
      name: 'page_worker_queue_length',
      help: 'Listing pages waiting for a page worker',
      registers,
      collect() {
        this.set(pageQueue?.() ?? 0);
      },
    });
  }

  /** The exposition text and its content type. */
  async render(): Promise<{ text: string; contentType: string }> {
    return { text: await this.registry.metrics(), contentType: this.registry.contentType };
  }

  /** Ends the current lag window: its figures are what scrapes report until the next one ends (the timer calls it every LAG_WINDOW_MS). */
  closeLagWindow(): void {
    this.lag = this.runningLag();
    this.loopDelay.reset();
  }

  /** The current window's lag so far, in seconds (the histogram counts nanoseconds; NaN before any sample). */
  private runningLag(): { p99: number; max: number } {
    const p99 = this.loopDelay.percentile(99);
    const max = this.loopDelay.max;
    return { p99: Number.isFinite(p99) ? p99 / 1e9 : 0, max: Number.isFinite(max) ? max / 1e9 : 0 };
  }

  close(): void {
    clearInterval(this.lagWindow);
    this.loopDelay.disable();
  }
}
