// Wrappers that measure the core's two outside parts without the core knowing: every store call
// (latency, errors) and every upstream read (latency by provider and outcome, fallbacks, bot walls,
// and the throttled warnings of upstream failures); the public figures' live reads and site requests.
import { isLookupError } from '../contract/index.js';
import type { Collected, Collector, FallbackObserver } from '../collector/index.js';
import type { Store } from '../store/index.js';
import type { ServiceMetrics } from './metrics.js';
import type { UpstreamWarnings } from './upstream-warnings.js';

const codeOf = (e: unknown): string => (isLookupError(e) ? e.code : 'internal');

const isThenable = (v: unknown): v is PromiseLike<unknown> =>
  typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';

/** A measured store answers this with the store it wraps. */
const MEASURED_FROM = Symbol('the store a measured store wraps');

/**
 * The store itself behind a measured one: what is kept per store in this process (the lookups'
 * held leases and unanswered commits) belongs to the store, whoever measures the calls to it.
 */
export const underlyingStore = <T extends object>(store: T): T =>
  (store as { [MEASURED_FROM]?: T })[MEASURED_FROM] ?? store;

/**
 * The store as the core sees it: each asynchronous method timed (store_command_seconds by method)
 * and its failures counted (store_errors_total by method and code). Synchronous members pass through.
 */
export function instrumentStore(store: Store, metrics: ServiceMetrics): Store {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, prop) {
      if (prop === MEASURED_FROM) return target;
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== 'function') return value;
      let fn = wrapped.get(prop);
      if (!fn) {
        const command = String(prop);
        fn = (...args: unknown[]) => {
          const started = performance.now();
          const result = (value as (...a: unknown[]) => unknown).apply(target, args);
          if (!isThenable(result)) return result;
          return Promise.resolve(result).then(
            (v) => {
              metrics.storeSeconds.observe({ command }, (performance.now() - started) / 1000);
              return v;
            },
            (e: unknown) => {
              metrics.storeSeconds.observe({ command }, (performance.now() - started) / 1000);
              metrics.storeErrors.inc({ command, code: codeOf(e) });
              throw e;
            },
          );
        };
        wrapped.set(prop, fn);
      }
      return fn;
    },
  });
}

/** self_hosted, or fallback for anything a provider read (the own collector's records say self_hosted). */
export const sourceOf = (provider: string): 'self_hosted' | 'fallback' =>
  provider === 'self_hosted' ? 'self_hosted' : 'fallback';

interface Observable {
  observe(observer: FallbackObserver): () => void;
}
const isObservable = (c: Collector): c is Collector & Observable =>
  typeof (c as Partial<Observable>).observe === 'function';

/**
 * The collector as the core sees it: each read and address resolution timed (upstream_read_seconds by
 * operation, provider and outcome), upstream failures warned about (throttled), and, when the
 * collector falls back (WithFallback), bot walls and fallbacks counted. Returns the wrapper and how
 * to stop observing.
 */
export function instrumentCollector(
  collector: Collector,
  metrics: ServiceMetrics,
  warnings: UpstreamWarnings,
): { collector: Collector; stop(): void } {
  const stop = isObservable(collector)
    ? collector.observe({
        ownFailed(e, operation) {
          // A read the breaker kept from the site met no wall.
          if (e.code === 'upstream_blocked' && e.details?.reason !== 'circuit_open') metrics.botWalls.inc();
          warnings.failed(e, operation);
        },
        fellBack(operation) {
          metrics.fallbacks.inc({ operation });
        },
        canary(outcome) {
          metrics.canaryReads.inc({ outcome });
        },
        attempt(e) {
          metrics.siteAttempts.inc({ outcome: e.outcome, kind: e.kind });
          metrics.tally.attempt(e.outcome === 'wall');
          if (e.proxied) {
            metrics.siteProxyRequests.inc();
            metrics.siteProxyBytes.inc(e.bytes);
          }
        },
      })
    : () => undefined;

  async function timed<T>(
    operation: 'read' | 'resolve',
    run: () => Promise<T>,
    collectedOf: (v: T) => Collected | undefined,
  ): Promise<T> {
    const started = performance.now();
    try {
      const v = await run();
      const collected = collectedOf(v);
      const provider = collected ? sourceOf(collected.source.provider) : 'self_hosted';
      const ms = performance.now() - started;
      metrics.upstreamSeconds.observe({ operation, provider, outcome: 'ok' }, ms / 1000);
      if (operation === 'read') metrics.tally.read(ms);
      return v;
    } catch (e) {
      const ms = performance.now() - started;
      metrics.upstreamSeconds.observe({ operation, provider: 'none', outcome: codeOf(e) }, ms / 1000);
      if (operation === 'read') metrics.tally.read(ms);
      warnings.failed(e, operation);
      throw e;
    }
  }

  const wrapper: Collector = {
    read: (target, ctx) =>
      timed(
        'read',
        () => collector.read(target, ctx),
        (c) => c,
      ),
    resolveAddress: (address, ctx) =>
      timed(
        'resolve',
        () => collector.resolveAddress(address, ctx),
        (r) => r.collected,
      ),
    ...(collector.close ? { close: () => collector.close!() } : {}),
    ...(collector.status ? { status: () => collector.status!() } : {}),
  };
  return { collector: wrapper, stop };
}
