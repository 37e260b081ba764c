// The shapes the lookup files share: the process's dependencies, a request's context, a home as
// loaded and as found in the cache. Types only, so every lookup file can import them and none has
// to import another for its types (no import circle).
import type DataLoader from 'dataloader';
import type { Logger } from 'pino';
import type { AuthCache } from '../accounts/index.js';
import type { RateLimiter, SlotPool } from '../accounts/rate-limit.js';
import type { PublicFigures } from '../observability/figures.js';
import type { ServiceMetrics } from '../observability/metrics.js';
import type { RequestStats } from '../observability/request-stats.js';
import type { Collector } from '../collector/types.js';
import type { Config } from '../config.js';
import type { Account, CacheEntry, Store } from '../store/index.js';
import type { ChargeFeed } from './charge-feed.js';
import type { Limiter } from './limiter.js';
import type { SingleFlight } from './single-flight.js';
import type { TimeLimits } from './time-limits.js';

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
  /** This instance's metrics: each lookup's outcome is recorded once, here in the core. */
  metrics: ServiceMetrics;
  /**
   * The service's public figures across its instances (GET /v1/status): what this instance counted
   * (metrics.tally) written to the store every few seconds, and read back summed. Closed with the metrics.
   */
  figures: PublicFigures;
  /** Per-key limits: lookups per minute and live lookups at once. */
  limits: RateLimiter;
  /** The request deadline, the lookup timeout and the background slot wait as signals (the clock's). */
  timeLimits: TimeLimits;
  /** Told of every charge recorded (the usage alerts listen); createCore makes one. */
  charges?: ChargeFeed;
}

export interface RequestContext {
  deps: CoreDeps;
  account: Account;
  /**
   * Whose budget the lookups draw on: the key's requests (the minute window, MAX_LIVE_PER_KEY) or its
   * background work (job items, watch checks: no window unit, BACKGROUND_MAX_LIVE_PER_KEY slots).
   */
  budget: SlotPool;
  /**
   * The `request` of the ledger entries this request charges, and its identity in the logs
   * (`coreRequestId`, beside the face's `reqId`): the face's id when the service made it, a new one when
   * the client chose it.
   */
  requestId: string;
  /** The request's child logger, made on first use (a cache hit logs nothing). */
  readonly logger: Logger;
  /** Aborts when the client goes away; made on first use (only a live lookup watches it). */
  readonly signal: AbortSignal;
  /** Aborts at the request's overall deadline (batches and GraphQL operations); made on first use. */
  readonly deadline: AbortSignal | null;
  /** Bounds how many live lookups of this request run at once. */
  limiter: Limiter;
  /** Live lookups of this request holding or seeking one of the key's live slots. */
  liveLookups: number;
  /** Cache reads of the request, batched into one store round trip per tick. */
  cache: DataLoader<string, CacheHit | null>;
  /** One load per home per request: duplicates meet here and are read and billed once. */
  homes: Map<string, Promise<Loaded>>;
  /** Homes whose live charge was already reported to a consumer of this request. */
  reported: Set<string>;
  /** What the request did (lookups, credits, upstream time, rate window), for its log line and headers. */
  stats: RequestStats;
  /**
   * A retry of an idempotent run that was not kept (lookup/idempotency.ts): when that run began. A read
   * made since then is fresh enough whatever max_age says, so the retry bills nothing that run billed.
   */
  retrySince?: number;
  /**
   * The id of the reservation of a live read of `homeKey` (a job chunk's, jobs/chunk.ts: the same on a
   * re-run of its round, so a run after a crash takes over what the dead run held); absent: a new id.
   */
  reservationIdFor?: (homeKey: string) => string;
  /**
   * Answers from the cache only: a miss is refused (live_lookups_disabled, details.reason `cache_only`)
   * instead of read live. A cancelled job's run (jobs/chunk.ts) settles what its dead run read, no more.
   */
  cacheOnly?: boolean;
}

export interface ContextOptions {
  /** The face's id of the request (a client's x-request-id when sane): logged as reqId. */
  requestId: string;
  /** The client chose requestId (x-request-id): it is never stored in the ledger. */
  clientChoseRequestId?: boolean;
  /** Makes the client-gone signal; called at most once, when a lookup first needs it. */
  signal?: () => AbortSignal;
  /** Overall deadline in ms from now (batches); none for a single lookup. */
  deadlineMs?: number;
  /** The face's record of the request, filled by the core (a new one when not given). */
  stats?: RequestStats;
  /** Background work (jobs, watches) draws on the key's background budget; requests on the interactive one. */
  budget?: SlotPool;
}

/** A home found in the cache. */
export interface CacheHit {
  entry: CacheEntry;
  /** The key the entry was found under. */
  entryKey: string;
  /** Read with `withRaw`: the raw record's JSON of the same write. */
  rawJson?: string | null;
}

/** A home as a lookup loaded it: from the cache, another reader's flight, or read live. */
export interface Loaded {
  entry: CacheEntry;
  /** The key the entry is stored under: the home's identity within a request. */
  entryKey: string;
  /** The key reported to the client (`meta.cache_key`). */
  cacheKey: string;
  cached: boolean;
  credits: 0 | 1;
  warning?: string;
  /** The raw record's JSON: read live, or (raw=true) read with the entry, of the same write. */
  rawJson?: string | null;
  /** A stale answer: the live read failed with this code and the last good record stands in (credits 0). */
  staleReason?: string;
}
