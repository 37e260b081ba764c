// The core's long-lived parts, made once per process: by buildApp for the HTTP faces, by the worker and by
// the MCP server over stdio (mcp/stdio.ts), which runs the same core without the HTTP faces. Background
// work (src/background.ts) is made beside it, not inside it.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Collector } from './collector/types.js';
import { AuthCache } from './accounts/index.js';
import type { RateLimiter } from './accounts/rate-limit.js';
import { backendFor } from './backend.js';
import { createLogger } from './logger.js';
import { ChargeFeed, clockTimeLimits, SingleFlight, type CoreDeps, type TimeLimits } from './lookup/index.js';
import { PublicFigures } from './observability/figures.js';
import { instrumentCollector, instrumentStore } from './observability/instrument.js';
import { ServiceMetrics } from './observability/metrics.js';
import { UpstreamWarnings } from './observability/upstream-warnings.js';
import type { Store } from './store/index.js';

export interface CoreParts {
  config: Config;
  store: Store;
  collector: Collector;
  clock?: () => Date;
  newId?: () => string;
  logger?: Logger;
  /** The per-key limits; by default made from the config (on Redis when REDIS_URL is set). */
  limits?: RateLimiter;
  /** The core's time limits; by default the clock's. */
  timeLimits?: TimeLimits;
}

/**
 * The store and the collector are measured into this core's own metrics registry (tests run many
 * instances in one process). Whoever made the core closes `figures` (before the store), `limits` and
 * `metrics` (buildApp does on close).
 */
export function createCore(parts: CoreParts): CoreDeps {
  const logger = parts.logger ?? createLogger(parts.config.logLevel, undefined, parts.config.logPretty);
  const metrics = new ServiceMetrics({
    pageQueue: () => parts.collector.status?.()?.selfHosted?.queued ?? null,
    breaker: () => parts.collector.status?.()?.site?.breaker ?? null,
  });
  const observed = instrumentCollector(parts.collector, metrics, new UpstreamWarnings(logger));
  const clock = parts.clock ?? (() => new Date());
  return {
    config: parts.config,
    store: instrumentStore(parts.store, metrics),
    collector: {
      ...observed.collector,
      close: async () => {
        observed.stop();
        await parts.collector.close?.();
      },
    },
    clock,
    newId: parts.newId ?? randomUUID,
    logger,
    flights: new SingleFlight(),
    auth: new AuthCache(parts.config.authCacheTtlMs),
    metrics,
    charges: new ChargeFeed(logger),
    figures: new PublicFigures({
      store: parts.store,
      tally: metrics.tally,
      clock,
      breaker: () => parts.collector.status?.()?.site?.breaker ?? null,
      logger,
    }),
    limits:
      parts.limits ??
      backendFor(parts.config).rateLimiter(logger, parts.clock ? () => parts.clock!().getTime() : Date.now),
    timeLimits: parts.timeLimits ?? clockTimeLimits,
  };
}
