// The per-request context every lookup runs in, built the same way by REST and GraphQL.
import { setMaxListeners } from 'node:events';
import type DataLoader from 'dataloader';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Collector } from '../collector/types.js';
import { authenticate, type AuthCache } from '../accounts/index.js';
import type { Account, Store } from '../store/index.js';
import { Limiter } from './limiter.js';
import type { CacheHit } from './cache.js';
import { createCacheLoader, type Loaded } from './loader.js';
import type { SingleFlight } from './single-flight.js';

/** Long-lived parts shared by all requests of one process. */
export interface CoreDeps {
  config: Config;
  store: Store;
  collector: Collector;
  clock: () => Date;
  newId: () => string;
  logger: Logger;
  flights: SingleFlight;
  /** API keys checked moments ago. */
  auth: AuthCache;
}

export interface RequestContext {
  deps: CoreDeps;
  account: Account;
  requestId: string;
  /** The request's child logger, made on first use (a cache hit logs nothing). */
  readonly logger: Logger;
  /** Aborts when the client goes away; made on first use (only a live lookup watches it). */
  readonly signal: AbortSignal;
  /** Aborts at the request's overall deadline (batches and GraphQL operations); made on first use. */
  readonly deadline: AbortSignal | null;
  /** Bounds how many live lookups of this request run at once. */
  limiter: Limiter;
  /** Cache reads of the request, batched into one store round trip per tick. */
  cache: DataLoader<string, CacheHit | null>;
  /** One load per home per request: duplicates meet here and are read and billed once. */
  homes: Map<string, Promise<Loaded>>;
  /** Homes whose live charge was already reported to a consumer of this request. */
  reported: Set<string>;
}

export interface ContextOptions {
  requestId: string;
  /** Makes the client-gone signal; called at most once, when a lookup first needs it. */
  signal?: () => AbortSignal;
  /** Overall deadline in ms from now (batches); none for a single lookup. */
  deadlineMs?: number;
}

/**
 * Opens a request for either face: who is calling (spec 5: before any validation; a store that
 * cannot be reached is store_unavailable, never a 401), then their context.
 */
export async function openRequest(deps: CoreDeps, apiKey: string | string[] | undefined, opts: ContextOptions): Promise<RequestContext> {
  const account = await authenticate(deps.store, deps.config.apiKeySecret, apiKey, deps.auth);
  return createRequestContext(deps, account, opts);
}

export function createRequestContext(deps: CoreDeps, account: Account, opts: ContextOptions): RequestContext {
  let logger: Logger | undefined;
  let signal: AbortSignal | undefined;
  let deadline: AbortSignal | null | undefined;
  const deadlineAt = opts.deadlineMs === undefined ? null : performance.now() + opts.deadlineMs;
  const ctx: RequestContext = {
    deps,
    account,
    requestId: opts.requestId,
    get logger() {
      return (logger ??= deps.logger.child({ reqId: opts.requestId, account: account.id }));
    },
    get signal() {
      return (signal ??= opts.signal ? opts.signal() : new AbortController().signal);
    },
    get deadline() {
      return deadline === undefined ? (deadline = deadlineAt === null ? null : deadlineSignal(deadlineAt)) : deadline;
    },
    limiter: new Limiter(deps.config.batchConcurrency),
    cache: createCacheLoader(deps.store),
    homes: new Map<string, Promise<Loaded>>(),
    reported: new Set<string>(),
  };
  return ctx;
}

/**
 * A signal that aborts at `at` (performance.now() time), already aborted when that has passed.
 * Every item of a request listens to it: up to a batch's worth of listeners is the design.
 */
function deadlineSignal(at: number): AbortSignal {
  const left = Math.ceil(at - performance.now());
  const signal = left > 0 ? AbortSignal.timeout(left) : AbortSignal.abort(new DOMException('The request deadline passed.', 'TimeoutError'));
  setMaxListeners(0, signal);
  return signal;
}
