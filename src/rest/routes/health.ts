// /healthz: the process answers. /readyz: it can serve lookups, and says what it checked: the store
// (reachable, holding the data this service seeded), the page workers, and the collector's set-up.
// Only the store decides readiness (503): a collector that cannot read live (misconfigured, or off)
// still serves cached homes, so it is reported as `degraded`, never taken out of rotation.
import type { FastifyInstance } from 'fastify';
import { LookupError, toLookupError } from '../../contract/index.js';
import type { SiteStatus } from '../../collector/index.js';
import type { CoreDeps } from '../../lookup/index.js';
import { sendError } from '../../http/envelope.js';

interface Checks {
  store: { ok: boolean; kind: string; code?: string; reason?: unknown };
  page_workers: {
    ok: boolean;
    configured: boolean;
    threads?: number;
    max_threads?: number;
    queued?: number;
    max_queue?: number;
    closed?: boolean;
  };
  collector: {
    ok: boolean;
    live_lookups: boolean;
    self_hosted: boolean;
    fallback: string | null;
    code?: string;
    reason?: string;
    site?: SiteStatus;
  };
}

function collectorChecks(deps: CoreDeps): Pick<Checks, 'page_workers' | 'collector'> {
  const status = deps.collector.status?.() ?? null;
  const pages = status?.selfHosted ?? null;
  const page_workers: Checks['page_workers'] = pages
    ? {
        ok: !pages.closed,
        configured: true,
        threads: pages.threads,
        max_threads: pages.maxThreads,
        queued: pages.queued,
        max_queue: pages.maxQueue,
        closed: pages.closed,
      }
    : { ok: true, configured: false };
  const collector: Checks['collector'] = {
    ok: status !== null && status.unavailable === undefined,
    live_lookups: deps.config.liveLookupsEnabled,
    self_hosted: pages !== null,
    fallback: status?.fallback ?? null,
    ...(status?.unavailable ? { code: status.unavailable.code, reason: status.unavailable.reason } : {}),
    ...(status === null ? { reason: 'the collector reports no status' } : {}),
    // The own collector's breaker, sessions and slots: whether lookups go straight to the fallback now.
    ...(status?.site ? { site: status.site } : {}),
  };
  return { page_workers, collector };
}

export function healthRoutes(app: FastifyInstance, deps: CoreDeps): void {
  app.route({
    method: ['GET', 'HEAD'],
    url: '/healthz',
    handler: async (_request, reply) => reply.send({ status: 'ok' }),
  });
  app.route({
    method: ['GET', 'HEAD'],
    url: '/readyz',
    handler: async (_request, reply) => {
      const { page_workers, collector } = collectorChecks(deps);
      try {
        await deps.store.ping();
      } catch (e) {
        const err = toLookupError(e);
        const store = {
          ok: false,
          kind: deps.store.kind,
          code: err.code,
          ...(err.details?.reason === undefined ? {} : { reason: err.details.reason }),
        };
        return sendError(
          reply,
          new LookupError(err.code, {
            message: err.message,
            details: { ...err.details, checks: { store, page_workers, collector } },
            ...(err.retryAfter === undefined ? {} : { retryAfter: err.retryAfter }),
            cause: e,
          }),
        );
      }
      if (!page_workers.ok) {
        return sendError(
          reply,
          new LookupError('upstream_busy', {
            message: 'The page workers are stopped: this instance is shutting down.',
            details: {
              reason: 'shutting_down',
              checks: { store: { ok: true, kind: deps.store.kind }, page_workers, collector },
            },
            retryAfter: 1,
          }),
        );
      }
      const checks: Checks = { store: { ok: true, kind: deps.store.kind }, page_workers, collector };
      return reply.send({ status: collector.ok ? 'ready' : 'degraded', store: deps.store.kind, checks });
    },
  });
}
