// Configuration from the environment. Every variable is documented in the README.
import { availableParallelism } from 'node:os';

export interface Config {
  port: number;
  host: string;
  /** Unset: the embedded in-memory store. */
  redisUrl: string | null;
  /** Prefix of every Redis key. */
  redisPrefix: string;
  /** The listing site's origin; a link's path and query are requested from here. */
  portalOrigin: string;
  /** The address-suggestion endpoint. */
  portalSuggestUrl: string;
  /** Optional outbound proxy for the listing site. */
  portalProxyUrl: string | null;
  /** The own collector; off leaves only the fallback provider. */
  selfHostedEnabled: boolean;
  fallback: {
    url: string | null;
    token: string | null;
    actor: string | null;
    /** Per-lookup cost cap passed to the provider, USD. */
    maxCostUsd: number;
    /** Highest cap used when the actor's own minimum is above maxCostUsd, USD. */
    maxCostCeilingUsd: number;
    /** Name reported in meta.source.provider. */
    name: string;
  };
  accountsFile: string | null;
  /** Secret for the keyed hash of API keys. */
  apiKeySecret: string;
  batchDeadlineMs: number;
  batchConcurrency: number;
  lookupTimeoutMs: number;
  /** Worker threads that read listing pages, and how many pages may wait for one. */
  pageWorkers: number;
  pageQueueMax: number;
  /** Time a client has to send a request's headers, and its whole request (headers and body). */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** On SIGTERM: how long running requests may go on before their lookups are aborted. */
  shutdownGraceMs: number;
  /**
   * Lifetime of a held reservation and of a single-flight lock unless their holder renews them
   * (every third of it while alive): a crashed instance's are freed this long after its last renewal.
   */
  leaseTtlMs: number;
  /** A Redis command unanswered this long while the process was mostly idle fails (store_unavailable). */
  redisCommandTimeoutMs: number;
  /** How long a lookup refused while the account's lookups in flight hold what it needs waits for them to settle. */
  creditWaitMs: number;
  /** GraphQL requests without an API key, per client address: a burst, refilled per second. */
  keylessBurst: number;
  keylessPerSecond: number;
  liveLookupsEnabled: boolean;
  /** Service-wide live lookups per UTC day for free plans; null = unlimited. */
  dailyLiveLookupBudget: number | null;
  /** Live lookups per UTC day for paid plans; null = unlimited. */
  paidDailyLiveLookupBudget: number | null;
  cacheTtlMs: number;
  /** The memory store's bound on cached homes, in bytes. */
  memoryCacheBytes: number;
  /** How long an API key checked once is trusted without the store (0: never). */
  authCacheTtlMs: number;
  ambiguityMemoTtlMs: number;
  logLevel: string;
  upgradeUrl: string;
  dashboardUrl: string;
}

type Env = Record<string, string | undefined>;

/**
 * A lease is renewed every third of it, each renewal bounded by the command timeout: it must outlast
 * a renewal that took the whole timeout and failed, and the next one. Shorter, a live holder under
 * load loses its lease and another instance reads (and charges) the same home.
 */
const LEASE_IN_COMMAND_TIMEOUTS = 3;

/** Lookups in flight settle within the lookup timeout, a crashed holder's within the lease: the credit wait covers both. */
function leases(env: Env): { leaseTtlMs: number; redisCommandTimeoutMs: number; creditWaitMs: number } {
  const redisCommandTimeoutMs = int(env, 'REDIS_COMMAND_TIMEOUT_MS', 1_000, 50);
  const leaseTtlMs = int(env, 'LEASE_TTL_MS', 5_000, 300);
  if (leaseTtlMs < LEASE_IN_COMMAND_TIMEOUTS * redisCommandTimeoutMs) {
    throw new Error(`LEASE_TTL_MS (${leaseTtlMs}) must be at least ${LEASE_IN_COMMAND_TIMEOUTS} × REDIS_COMMAND_TIMEOUT_MS (${redisCommandTimeoutMs})`);
  }
  const lookupTimeoutMs = int(env, 'LOOKUP_TIMEOUT_MS', 60_000, 1);
  return { leaseTtlMs, redisCommandTimeoutMs, creditWaitMs: int(env, 'CREDIT_WAIT_MS', lookupTimeoutMs + leaseTtlMs + 5_000) };
}

const int = (env: Env, name: string, fallback: number, min = 0): number => {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min} (got "${v}")`);
  return n;
};

const optInt = (env: Env, name: string): number | null => {
  const v = env[name];
  return v === undefined || v === '' ? null : int(env, name, 0);
};

const bool = (env: Env, name: string, fallback: boolean): boolean => {
  const v = env[name]?.toLowerCase();
  if (v === undefined || v === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new Error(`${name} must be true or false (got "${env[name]}")`);
};

const str = (env: Env, name: string): string | null => {
  const v = env[name]?.trim();
  return v ? v : null;
};

/** Node refuses a headers limit above the whole request's. */
function timeouts(env: Env): { headersTimeoutMs: number; requestTimeoutMs: number } {
  const headersTimeoutMs = int(env, 'HEADERS_TIMEOUT_MS', 10_000, 1);
  const requestTimeoutMs = int(env, 'REQUEST_TIMEOUT_MS', 30_000, 1);
  if (headersTimeoutMs > requestTimeoutMs) throw new Error(`HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not exceed REQUEST_TIMEOUT_MS (${requestTimeoutMs})`);
  return { headersTimeoutMs, requestTimeoutMs };
}

export const DEFAULT_PORTAL_ORIGIN = 'https://www.zillow.com';
export const DEFAULT_SUGGEST_URL = 'https://www.zillowstatic.com/autocomplete/v3/suggestions';
const DEV_SECRET = 'dev-only-secret-change-me';

export function loadConfig(env: Env = process.env): Config {
  return {
    port: int(env, 'PORT', 4000),
    host: str(env, 'HOST') ?? '0.0.0.0',
    redisUrl: str(env, 'REDIS_URL'),
    redisPrefix: str(env, 'REDIS_PREFIX') ?? 'pl:',
    portalOrigin: (str(env, 'PORTAL_ORIGIN') ?? DEFAULT_PORTAL_ORIGIN).replace(/\/+$/, ''),
    portalSuggestUrl: str(env, 'PORTAL_SUGGEST_URL') ?? DEFAULT_SUGGEST_URL,
    portalProxyUrl: str(env, 'PORTAL_PROXY_URL'),
    selfHostedEnabled: bool(env, 'SELF_HOSTED_ENABLED', true),
    fallback: {
      url: str(env, 'FALLBACK_URL'),
      token: str(env, 'FALLBACK_TOKEN'),
      actor: str(env, 'FALLBACK_ACTOR'),
      maxCostUsd: Number(str(env, 'FALLBACK_MAX_COST_USD') ?? '0.05'),
      maxCostCeilingUsd: Number(str(env, 'FALLBACK_MAX_COST_CEILING_USD') ?? '0.5'),
      name: str(env, 'FALLBACK_PROVIDER_NAME') ?? 'apify',
    },
    accountsFile: str(env, 'ACCOUNTS_FILE'),
    apiKeySecret: str(env, 'API_KEY_SECRET') ?? DEV_SECRET,
    batchDeadlineMs: int(env, 'BATCH_DEADLINE_MS', 280_000, 1),
    batchConcurrency: int(env, 'BATCH_CONCURRENCY', 10, 1),
    lookupTimeoutMs: int(env, 'LOOKUP_TIMEOUT_MS', 60_000, 1),
    pageWorkers: int(env, 'PAGE_WORKERS', availableParallelism(), 1),
    pageQueueMax: int(env, 'PAGE_QUEUE_MAX', 128, 1),
    ...timeouts(env),
    shutdownGraceMs: int(env, 'SHUTDOWN_GRACE_MS', 25_000),
    ...leases(env),
    keylessBurst: int(env, 'KEYLESS_BURST', 60, 1),
    keylessPerSecond: int(env, 'KEYLESS_PER_SECOND', 1, 1),
    liveLookupsEnabled: bool(env, 'LIVE_LOOKUPS_ENABLED', true),
    dailyLiveLookupBudget: optInt(env, 'DAILY_LIVE_LOOKUP_BUDGET'),
    paidDailyLiveLookupBudget: optInt(env, 'PAID_DAILY_LIVE_LOOKUP_BUDGET'),
    cacheTtlMs: int(env, 'CACHE_TTL_MS', 24 * 3600_000, 1),
    memoryCacheBytes: int(env, 'MEMORY_CACHE_MB', 128, 1) * 1024 * 1024,
    authCacheTtlMs: int(env, 'AUTH_CACHE_TTL_MS', 5_000),
    ambiguityMemoTtlMs: int(env, 'AMBIGUITY_MEMO_TTL_MS', 3600_000, 1),
    logLevel: str(env, 'LOG_LEVEL') ?? 'info',
    upgradeUrl: str(env, 'UPGRADE_URL') ?? 'https://example.com/pricing',
    dashboardUrl: str(env, 'DASHBOARD_URL') ?? 'https://example.com/dashboard/billing',
  };
}

/** True when the API-key secret was left at its development default. */
export const usesDevSecret = (c: Config): boolean => c.apiKeySecret === DEV_SECRET;
