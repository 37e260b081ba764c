// What the collector folder offers: one factory that picks the composition from the config.
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { LookupError, type ErrorCode } from '../contract/index.js';
import { FallbackProvider } from './fallback/index.js';
import { PagePool } from './page-pool.js';
import { SelfHostedCollector } from './self-hosted.js';
import { SiteClient } from './site/client.js';
import { trustExtraCertificates } from './site/trust.js';
import type { Collector } from './types.js';
import { WithFallback } from './with-fallback.js';

export type * from './types.js';
export { FallbackProvider, type FallbackProviderOptions } from './fallback/index.js';
export { SelfHostedCollector, SELF_HOSTED, type SelfHostedOptions } from './self-hosted.js';
export {
  SiteClient,
  type SiteClientOptions,
  type SiteStatus,
  type AttemptEvent,
  type AttemptOutcome,
} from './site/client.js';
export { PagePool, type PagePoolOptions } from './page-pool.js';
export { WithFallback, type FallbackObserver } from './with-fallback.js';

export interface CollectorDeps {
  /** Stamps `scrapedAt`; injected so tests pin it. */
  clock?: () => Date;
  /** Where the fallback provider reports its cost-cap findings; silent when not given. */
  logger?: Logger;
  /** The page readers, when one pool serves several services (tests: one worker start per process). */
  pages?: PagePool;
  /** The fallback provider's first pause after a 429 (its default otherwise); tests shorten the wait. */
  fallbackBackoffMs?: number;
  /** Run the canary (PORTAL_CANARY_ZPIDS) here: the service process does, not every worker. */
  canary?: boolean;
}

/** Every call fails with one code: live lookups are off or impossible with this configuration. */
const unavailable = (code: ErrorCode, reason: string): Collector => {
  const fail = () => Promise.reject(new LookupError(code, { details: { reason } }));
  return {
    read: fail,
    resolveAddress: fail,
    status: () => ({ selfHosted: null, fallback: null, unavailable: { code, reason } }),
  };
};

/** The fallback provider from the config: null when none is set up, a failing stub when half set up. */
function providerFrom(config: Config, clock: () => Date, deps: CollectorDeps): Collector | null {
  const { url, token, actor, maxCostUsd, maxCostCeilingUsd, name } = config.fallback;
  if (!url && !token && !actor) return null;
  if (!url || !token || !actor) {
    return unavailable('upstream_misconfigured', 'FALLBACK_URL, FALLBACK_TOKEN and FALLBACK_ACTOR must all be set');
  }
  // Without a positive cap a run could spend without limit.
  if (!(maxCostUsd > 0))
    return unavailable('upstream_misconfigured', 'FALLBACK_MAX_COST_USD must be a positive number');
  if (!(maxCostCeilingUsd >= maxCostUsd)) {
    return unavailable(
      'upstream_misconfigured',
      'FALLBACK_MAX_COST_CEILING_USD must be a number no lower than FALLBACK_MAX_COST_USD',
    );
  }
  const provider = new FallbackProvider({
    url,
    token,
    actor,
    maxCostUsd,
    maxCostCeilingUsd,
    name,
    timeoutMs: config.lookupTimeoutMs,
    clock,
    ...(deps.logger ? { logger: deps.logger } : {}),
    ...(deps.fallbackBackoffMs === undefined ? {} : { backoffMs: deps.fallbackBackoffMs }),
  });
  // At start-up: a cap below the actor's minimum would fail every run.
  void provider.checkCostCap();
  return provider;
}

/**
 * live lookups off → live_lookups_disabled; own collector on → own first, provider on the codes of the
 * error table's `fallback` column; own collector off → provider only; neither → no_api_keys.
 */
export function createCollector(config: Config, deps: CollectorDeps = {}): Collector {
  if (!config.liveLookupsEnabled) return unavailable('live_lookups_disabled', 'LIVE_LOOKUPS_ENABLED is false');
  const clock = deps.clock ?? (() => new Date());
  const provider = providerFrom(config, clock, deps);
  if (!config.selfHostedEnabled)
    return provider ?? unavailable('no_api_keys', 'the own collector is off and no fallback provider is set up');
  trustExtraCertificates();
  const { site } = config;
  const own = new SelfHostedCollector({
    origin: config.portalOrigin,
    suggestUrl: config.portalSuggestUrl,
    client: new SiteClient({
      budgetMs: Math.min(site.budgetMs, config.lookupTimeoutMs),
      siteOrigin: config.portalOrigin,
      proxyUrls: config.portalProxyUrls,
      maxConcurrency: site.maxConcurrency,
      retries: site.retries,
      sessions: {
        maxDocuments: site.sessionDocuments,
        maxAgeMs: site.sessionMaxAgeMs,
        gapMs: site.sessionGapMs,
        warmUp: site.warmUp,
      },
      breaker: { probeMs: site.breakerProbeMs },
    }),
    pages: deps.pages ?? new PagePool({ workers: config.pageWorkers, maxQueue: config.pageQueueMax }),
    ...(deps.canary
      ? {
          canary: {
            zpids: site.canaryZpids,
            intervalMs: site.canaryIntervalMs,
            readTimeoutMs: Math.min(site.budgetMs, config.lookupTimeoutMs),
          },
        }
      : {}),
    clock,
  });
  return new WithFallback(own, provider);
}
