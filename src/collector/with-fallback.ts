// The own collector first; the fallback provider only when the own collector cannot get through to the
// site: a bot wall (also the breaker's circuit_open), an unreadable page, the site rate-limiting us, a
// proxy that refused, a site that did not answer within the own collector's budget or could not be
// reached (its client tried fresh sessions first: site/client.ts), while the lookup has time left.
// Not-found, ambiguity and the site's own errors (5xx) are answers about the home or the site, returned
// as they are; so is our own overload (every page reader busy): the site was read, a paid run would not help.
import { isFallbackEligible, isLookupError, type LookupError } from '../contract/index.js';
import { SELF_HOSTED, SelfHostedCollector } from './self-hosted.js';
import { OWN_QUEUE, type AttemptEvent, type AttemptOutcome } from './site/client.js';
import type {
  AddressQuery,
  Collected,
  Collector,
  CollectorStatus,
  ReadContext,
  ReadTarget,
  ResolvedAddress,
} from './types.js';

/** Told of each failure of the own collector (a bot wall, say) and of each read handed to the provider. */
export interface FallbackObserver {
  ownFailed(e: LookupError, operation: 'read' | 'resolve'): void;
  fellBack(operation: 'read' | 'resolve'): void;
  /** Each request the own collector made to the site, with its outcome. */
  attempt?(e: AttemptEvent): void;
  /** Each canary read's outcome. */
  canary?(outcome: AttemptOutcome): void;
}

/** Less time than this left of the lookup: a paid run could not finish, the own failure is the answer. */
const MIN_FALLBACK_MS = 1_000;

/** `upstream_busy` about this instance, not the site: its page readers' queue is full (page-pool.ts), its slots at the site taken (site/client.ts). */
const OWN_OVERLOAD = new Set(['page_readers_busy', OWN_QUEUE]);

/** Own-collector failures the provider may get past (the error table's `fallback` column), but our own overload. */
const mayFallBack = (e: unknown): boolean =>
  isLookupError(e) &&
  isFallbackEligible(e.code) &&
  !(e.code === 'upstream_busy' && OWN_OVERLOAD.has(String(e.details?.reason)));

const marked = (c: Collected): Collected => ({ ...c, source: { ...c.source, fallback_from: SELF_HOSTED } });

export class WithFallback implements Collector {
  private readonly observers = new Set<FallbackObserver>();

  constructor(
    private readonly own: Collector,
    private readonly provider: Collector | null,
  ) {}

  /** Adds an observer (the service's metrics and warnings); returns how to remove it. */
  observe(observer: FallbackObserver): () => void {
    this.observers.add(observer);
    const own = this.own instanceof SelfHostedCollector ? this.own : null;
    const attempts = own && observer.attempt ? own.onAttempt((e) => observer.attempt!(e)) : () => undefined;
    const canary = own && observer.canary ? own.onCanary((o) => observer.canary!(o)) : () => undefined;
    return () => {
      attempts();
      canary();
      this.observers.delete(observer);
    };
  }

  status(): CollectorStatus {
    const own = this.own.status?.();
    return {
      selfHosted: own?.selfHosted ?? null,
      fallback: this.provider?.status?.().fallback ?? null,
      ...(own?.site ? { site: own.site } : {}),
    };
  }

  read(target: ReadTarget, ctx: ReadContext): Promise<Collected> {
    return this.attempt(
      'read',
      ctx,
      () => this.own.read(target, ctx),
      async (p) => marked(await p.read(target, ctx)),
    );
  }

  resolveAddress(address: AddressQuery, ctx: ReadContext): Promise<ResolvedAddress> {
    return this.attempt(
      'resolve',
      ctx,
      () => this.own.resolveAddress(address, ctx),
      async (p) => {
        const r = await p.resolveAddress(address, ctx);
        return r.collected ? { ...r, collected: marked(r.collected) } : r;
      },
    );
  }

  async close(): Promise<void> {
    await Promise.all([this.own.close?.(), this.provider?.close?.()]);
  }

  private async attempt<T>(
    operation: 'read' | 'resolve',
    ctx: ReadContext,
    first: () => Promise<T>,
    fallback: (p: Collector) => Promise<T>,
  ): Promise<T> {
    try {
      return await first();
    } catch (e) {
      if (isLookupError(e)) for (const o of this.observers) o.ownFailed(e, operation);
      // A cancelled lookup, or one out of time, must not start a paid run.
      const late = ctx.deadlineAt !== undefined && ctx.deadlineAt - Date.now() < MIN_FALLBACK_MS;
      if (!this.provider || ctx.signal.aborted || late || !mayFallBack(e)) throw e;
      for (const o of this.observers) o.fellBack(operation);
      return fallback(this.provider);
    }
  }
}
