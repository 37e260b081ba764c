// The per-request context every lookup runs in, built the same way by REST and GraphQL.
import { setMaxListeners } from 'node:events';
import type DataLoader from 'dataloader';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Collector } from '../collector/types.js';
import { authenticate } from '../accounts/index.js';
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
}

export interface RequestContext {
  deps: CoreDeps;
  account: Account;
  requestId: string;
  logger: Logger;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
  /** Aborts at the request's overall deadline (batches and GraphQL operations). */
  deadline: AbortSignal | null;
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
  signal?: AbortSignal;
  /** Overall deadline in ms from now (batches); none for a single lookup. */
  deadlineMs?: number;
}

/**
 * Opens a request for either face: who is calling (spec 5: before any validation; a store that
 * cannot be reached is store_unavailable, never a 401), then their context.
 */
export async function openRequest(deps: CoreDeps, apiKey: string | string[] | undefined, opts: ContextOptions): Promise<RequestContext> {
  const account = await authenticate(deps.store, deps.config.apiKeySecret, apiKey);
  return createRequestContext(deps, account, opts);
}

export function createRequestContext(deps: CoreDeps, account: Account, opts: ContextOptions): RequestContext {
  const ctx: RequestContext = {
    deps,
    account,
    requestId: opts.requestId,
    logger: deps.logger.child({ reqId: opts.requestId, account: account.id }),
    signal: opts.signal ?? new AbortController().signal,
    deadline: opts.deadlineMs === undefined ? null : fannedOut(AbortSignal.timeout(opts.deadlineMs)),
    limiter: new Limiter(deps.config.batchConcurrency),
    cache: createCacheLoader(deps.store),
    homes: new Map<string, Promise<Loaded>>(),
    reported: new Set<string>(),
  };
  return ctx;
}

/** Every item of a request listens to its deadline: up to a batch's worth of listeners is the design. */
function fannedOut(signal: AbortSignal): AbortSignal {
  setMaxListeners(0, signal);
  return signal;
}
