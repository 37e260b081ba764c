// The per-request context every lookup runs in, built the same way by REST and GraphQL.
import type { Logger } from 'pino';
import { authenticate } from '../accounts/index.js';
import { maxLiveOf } from '../accounts/rate-limit.js';
import type { Account } from '../store/index.js';
import { createCacheLoader } from './cache.js';
import { Limiter } from './limiter.js';
import { RequestStats } from '../observability/request-stats.js';
import type { ContextOptions, CoreDeps, Loaded, RequestContext } from './types.js';

/**
 * Opens a request for either face: who is calling (spec 5: before any validation; a store that
 * cannot be reached is store_unavailable, never a 401), then their context.
 */
export async function openRequest(
  deps: CoreDeps,
  apiKey: string | string[] | undefined,
  opts: ContextOptions,
): Promise<RequestContext> {
  const account = await authenticate(deps.store, deps.config.apiKeySecret, apiKey, deps.auth);
  return createRequestContext(deps, account, opts);
}

export function createRequestContext(deps: CoreDeps, account: Account, opts: ContextOptions): RequestContext {
  let logger: Logger | undefined;
  let signal: AbortSignal | undefined;
  let deadline: AbortSignal | null | undefined;
  const deadlineAt = opts.deadlineMs === undefined ? null : performance.now() + opts.deadlineMs;
  // A client's own x-request-id names the request in logs and answers, never in the ledger (two requests
  // may send the same); an id the service made is the ledger's too, so an answer leads to its charges.
  const requestId = opts.clientChoseRequestId ? deps.newId() : opts.requestId;
  const budget = opts.budget ?? 'interactive';
  const maxLive = maxLiveOf(deps.limits.settings, budget);
  const ctx: RequestContext = {
    deps,
    account,
    budget,
    requestId,
    get logger() {
      return (logger ??= deps.logger.child({ reqId: opts.requestId, coreRequestId: requestId, account: account.id }));
    },
    get signal() {
      return (signal ??= opts.signal ? opts.signal() : new AbortController().signal);
    },
    get deadline() {
      return deadline === undefined
        ? (deadline =
            deadlineAt === null ? null : deps.timeLimits.after('batch_deadline', deadlineAt - performance.now()))
        : deadline;
    },
    // Never more than the key's own live cap: a batch alone must not trip it.
    limiter: new Limiter(maxLive > 0 ? Math.min(deps.config.batchConcurrency, maxLive) : deps.config.batchConcurrency),
    liveLookups: 0,
    cache: createCacheLoader(deps.store),
    homes: new Map<string, Promise<Loaded>>(),
    reported: new Set<string>(),
    stats: opts.stats ?? new RequestStats(),
  };
  ctx.stats.account = account.id;
  ctx.stats.coreRequestId = requestId;
  return ctx;
}
