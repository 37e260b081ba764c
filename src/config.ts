// Configuration from the environment. ENV is the one schema of every variable the service reads: its
// type, range, default and meaning. Start-up checks the whole environment against it and refuses to
// start with the list of every problem (loadConfigOrExit). docs/configuration.md is generated from it and
// the texts in src/config/env-docs.ts (npm run docs:config). Config, what the code reads, is computed from
// ENV's table of fields (FIELDS: each variable's field and conversion; DERIVED: the few fields read from
// several). A new variable: its entry in ENV, its row in FIELDS, its ENV_DOCS text, then npm run docs:config.
// Longer than 500 lines on purpose: the two tables are one list each, read top to bottom, not split.
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { Type, type Static } from '@sinclair/typebox';
import {
  ConfigError,
  MAX_TIMER_MS,
  decimal,
  flag,
  httpUrl,
  integer,
  ms,
  oneOf,
  readEnv,
  redisUrl,
  text,
  type Env,
  type EnvRule,
} from './config/read-env.js';
import { MAX_BATCH_ITEMS } from './contract/index.js';
/** MAX_JOB_ITEMS (src/jobs/types.ts, which this file cannot import without a circle): a whole job's items. */
const JOB_ITEMS_MAX = 10_000;

export { ConfigError } from './config/read-env.js';

export const DEFAULT_PORTAL_ORIGIN = 'https://www.zillow.com';
export const DEFAULT_SUGGEST_URL = 'https://www.zillowstatic.com/autocomplete/v3/suggestions';
const DEV_SECRET = 'dev-only-secret-change-me';
/** Under production a shorter API_KEY_SECRET is refused: a few characters can be guessed. */
export const MIN_PRODUCTION_SECRET_LENGTH = 16;

/** `production` in any case, and its short form: a typo must not skip the production checks. */
export const isProduction = (nodeEnv: string | undefined): boolean => /^prod(uction)?$/i.test(nodeEnv?.trim() ?? '');

/**
 * After SHUTDOWN_GRACE_MS the stop's backstop (server.ts) waits this much more: the aborted requests'
 * answer time (3 s) and a margin (5 s). Grace plus this must stay a valid timer, or Node fires it at once.
 */
export const STOP_AFTER_GRACE_MS = 8_000;

/**
 * A lease is renewed every third of it, each renewal bounded by the command timeout: it must outlast
 * a renewal that took the whole timeout and failed, and the next one. Shorter, a live holder under
 * load loses its lease and another instance reads (and charges) the same home.
 */
const LEASE_IN_COMMAND_TIMEOUTS = 3;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const opt = Type.Optional;

/** Every environment variable the service reads. */
export const ENV = Type.Object({
  NODE_ENV: opt(
    text({
      description:
        '`production` (any case, or `prod`) makes a missing, default or short API_KEY_SECRET a start-up error',
    }),
  ),
  PORT: integer({ default: 4000, minimum: 0, maximum: 65_535, description: 'Port to listen on' }),
  HOST: text({ default: '0.0.0.0', description: 'Address to listen on' }),
  REDIS_URL: opt(redisUrl({ description: 'Redis for the store; unset: the embedded in-memory store', secret: true })),
  REDIS_PREFIX: text({ default: 'pl:', description: 'Prefix of every Redis key' }),
  PORTAL_ORIGIN: httpUrl({
    default: DEFAULT_PORTAL_ORIGIN,
    description: "The listing site's origin",
    docDefault: "the listing site's origin",
  }),
  PORTAL_SUGGEST_URL: httpUrl({
    default: DEFAULT_SUGGEST_URL,
    description: 'The address-suggestion endpoint',
    docDefault: "the site's public address-suggestion endpoint",
  }),
  PORTAL_PROXY_URL: opt(
    httpUrl({
      description:
        "Outbound proxy for the listing site; `{session}` in it is replaced by each session's id (a residential gateway's sticky session)",
      secret: true,
    }),
  ),
  PORTAL_PROXY_URLS: opt(
    text({
      description:
        'Outbound proxies for the listing site, a comma list used in turn, one per session (instead of PORTAL_PROXY_URL)',
      secret: true,
    }),
  ),
  PORTAL_MAX_CONCURRENCY: integer({
    default: 4,
    minimum: 1,
    description: 'Documents the own collector has in flight at the listing site at once, service-wide per process',
  }),
  PORTAL_SESSION_DOCUMENTS: integer({
    default: 3,
    minimum: 1,
    description: 'Documents one session (one cookie jar, one proxy session) reads before it is retired',
  }),
  PORTAL_SESSION_MAX_AGE_MS: ms({ default: 300_000, minimum: 1, description: 'A session older than this is retired' }),
  PORTAL_SESSION_GAP_MS: ms({
    default: 2_000,
    minimum: 0,
    description: 'The gap between two documents of one session (jittered between half and one and a half of it)',
  }),
  PORTAL_SESSION_WARMUP: flag({
    default: false,
    description: "A new session first visits the site's home page (one more document per session)",
  }),
  PORTAL_SESSION_RETRIES: integer({
    default: 2,
    minimum: 0,
    maximum: 10,
    description: 'Retries on a fresh session after a wall, 403, 429, proxy refusal, timeout or failed connection',
  }),
  PORTAL_SELF_HOSTED_BUDGET_MS: ms({
    default: 20_000,
    minimum: 1,
    description:
      "The own collector's time for one read, retries included (then the fallback provider; never past LOOKUP_TIMEOUT_MS)",
  }),
  PORTAL_BREAKER_PROBE_MS: ms({
    default: 60_000,
    minimum: 1,
    description:
      'While the circuit breaker is open (most recent own-collector attempts refused), one read this often still goes to the site',
  }),
  PORTAL_CANARY_ZPIDS: opt(
    text({
      description: 'A comma list of zpids the canary reads through the own collector only, never billed or cached',
    }),
  ),
  PORTAL_CANARY_INTERVAL_MS: ms({
    default: 3_600_000,
    minimum: 1_000,
    description: 'How often the canary reads its zpids',
  }),
  SELF_HOSTED_ENABLED: flag({ default: true, description: 'The own collector' }),
  FALLBACK_URL: opt(httpUrl({ description: "The fallback platform's base URL" })),
  FALLBACK_TOKEN: opt(text({ description: "The fallback platform's token", secret: true })),
  FALLBACK_ACTOR: opt(text({ description: 'The fallback actor, owner/name' })),
  // Without a positive cap a run could spend without limit.
  FALLBACK_MAX_COST_USD: decimal({ default: 0.05, exclusiveMinimum: 0, description: 'Per-lookup cost cap, USD' }),
  FALLBACK_MAX_COST_CEILING_USD: decimal({
    default: 0.5,
    exclusiveMinimum: 0,
    description: "Highest cap used when the actor's minimum is above the cap, USD",
  }),
  FALLBACK_PROVIDER_NAME: text({ default: 'apify', description: 'Name reported in meta.source.provider' }),
  ACCOUNTS_FILE: opt(text({ description: 'Accounts seeded at start-up' })),
  PORTAL_API_KEY: opt(
    text({ description: 'The API key the MCP server over stdio (node dist/mcp/stdio.js) acts as', secret: true }),
  ),
  API_KEY_SECRET: opt(
    text({
      description: 'Secret for the keyed hash of API keys',
      secret: true,
      docDefault: 'a development secret (warned about; refused when `NODE_ENV` is `production`)',
    }),
  ),
  BATCH_DEADLINE_MS: ms({ default: 280_000, minimum: 1, description: 'Overall limit of a batch' }),
  BATCH_CONCURRENCY: integer({ default: 10, minimum: 1, description: 'Live lookups one request runs at once' }),
  LOOKUP_TIMEOUT_MS: ms({ default: 60_000, minimum: 1, description: 'Limit of one live read' }),
  PAGE_WORKERS: opt(
    integer({
      minimum: 1,
      description: 'Worker threads that read listing pages',
      docDefault: 'the CPUs the process may use (`os.availableParallelism()`)',
    }),
  ),
  PAGE_QUEUE_MAX: integer({ default: 128, minimum: 1, description: 'Pages that may wait for a page worker' }),
  LIVE_LOOKUPS_ENABLED: flag({ default: true, description: 'Live lookups; false: cached homes only' }),
  DAILY_LIVE_LOOKUP_BUDGET: opt(
    integer({ minimum: 0, description: 'Service-wide live lookups per UTC day (free plans)', docDefault: 'unlimited' }),
  ),
  PAID_DAILY_LIVE_LOOKUP_BUDGET: opt(
    integer({ minimum: 0, description: 'Live lookups per UTC day (paid plans)', docDefault: 'unlimited' }),
  ),
  CACHE_TTL_MS: ms({ default: 24 * 3600_000, minimum: 1, description: 'Cache lifetime' }),
  INCOMPLETE_TTL_MS: ms({
    default: 10 * 60_000,
    minimum: 1,
    description:
      'How long a record with a section in extraction_failed is served from the cache before it is read again',
  }),
  // No timer waits this long (it is a store lifetime), so past a timer's maximum.
  STALE_TTL_MS: integer({
    default: 30 * 24 * 3600_000,
    minimum: 0,
    description:
      "How long a home's last good record is kept after its cache lifetime, for stale answers and change hints (0: not kept)",
  }),
  // The bound in bytes must stay a safe integer.
  MEMORY_CACHE_MB: integer({
    default: 128,
    minimum: 1,
    maximum: 1_048_576,
    description: "The memory store's bound on cached homes, MiB",
  }),
  AUTH_CACHE_TTL_MS: ms({
    default: 5_000,
    minimum: 0,
    description: 'How long an API key checked once is trusted without the store',
  }),
  AMBIGUITY_MEMO_TTL_MS: ms({
    default: 3600_000,
    minimum: 1,
    description: 'How long an address_ambiguous answer is remembered',
  }),
  UPGRADE_URL: httpUrl({
    default: 'https://example.com/pricing',
    description: 'Link put in credits_exhausted errors',
    docDefault: 'example URLs',
  }),
  DASHBOARD_URL: httpUrl({
    default: 'https://example.com/dashboard/billing',
    description: 'Link put in spend_limit_reached errors',
    docDefault: 'example URLs',
  }),
  LEASE_TTL_MS: ms({ default: 5_000, minimum: 300, description: 'Lifetime of a reservation or lock unless renewed' }),
  REDIS_COMMAND_TIMEOUT_MS: ms({
    default: 1_000,
    minimum: 50,
    description: 'A Redis command unanswered this long fails',
  }),
  CREDIT_WAIT_MS: opt(
    ms({
      minimum: 0,
      description: "How long a lookup refused for credits waits for the account's lookups in flight",
      docDefault: '`LOOKUP_TIMEOUT_MS` + `LEASE_TTL_MS` + 5 s',
    }),
  ),
  IDEMPOTENCY_WAIT_MS: ms({
    default: 60_000,
    minimum: 0,
    description:
      'How long a retry with an Idempotency-Key waits for the first request with that key (then 409 idempotency_key_in_use)',
  }),
  IDEMPOTENCY_MAX_ANSWER_BYTES: integer({
    default: 4 * 1024 * 1024,
    minimum: 0,
    maximum: 1024 * 1024 * 1024,
    description:
      'The largest answer (body bytes, before compression) kept 24 h for an Idempotency-Key; a larger one is not kept and its retry runs again, billing nothing the first run billed',
  }),
  LOG_LEVEL: oneOf(LOG_LEVELS, { default: 'info', description: 'pino level' }),
  HEADERS_TIMEOUT_MS: ms({ default: 10_000, minimum: 1, description: "Time a client has to send a request's headers" }),
  REQUEST_TIMEOUT_MS: ms({ default: 30_000, minimum: 1, description: 'Time a client has to send its whole request' }),
  SHUTDOWN_GRACE_MS: ms({
    default: 25_000,
    minimum: 0,
    maximum: MAX_TIMER_MS - STOP_AFTER_GRACE_MS,
    description: 'On SIGTERM, how long running requests may go on',
  }),
  KEYLESS_BURST: integer({
    default: 60,
    minimum: 1,
    description: 'Keyless /graphql requests per client address: the burst',
  }),
  KEYLESS_PER_SECOND: integer({
    default: 1,
    minimum: 1,
    description: 'Keyless /graphql requests per client address: refilled per second',
  }),
  TRUST_PROXY: text({
    default: 'false',
    description:
      'Proxies whose X-Forwarded-For names the client: `false`, `true` (any), or a comma list of addresses, CIDRs or `loopback`/`linklocal`/`uniquelocal`',
  }),
  LOG_PRETTY: flag({
    default: false,
    description: 'Readable log lines instead of JSON',
    docDefault: '`false` (`npm run demo`: `true`)',
  }),
  METRICS_TOKEN: opt(text({ description: 'Bearer token for GET /metrics on the main port', secret: true })),
  METRICS_PORT: opt(
    integer({ minimum: 0, maximum: 65_535, description: 'Port of a separate /metrics listener without a token' }),
  ),
  METRICS_HOST: text({ default: '127.0.0.1', description: 'Address of the METRICS_PORT listener' }),
  // A full batch (50 lookups) must fit in one window.
  RATE_LIMIT_PER_MINUTE: integer({
    default: 600,
    minimum: 0,
    description: 'Lookups per API key and minute; 0: no limit',
  }),
  MAX_LIVE_PER_KEY: integer({
    default: 10,
    minimum: 0,
    description: "Live lookups of one API key's requests (single, batch, GraphQL, MCP) at once; 0: no cap",
  }),
  LEDGER_RETENTION_DAYS: integer({
    default: 400,
    minimum: 1,
    description:
      'How long a charge stays in the billing ledger (a year and a month by default, so last month of last year can still be reconciled); older lines are trimmed as new ones come',
  }),
  HISTORY_RETENTION_DAYS: integer({
    default: 400,
    minimum: 1,
    maximum: 36_500,
    description:
      "How long a home's history events (one per live read) are kept; older ones are trimmed as new ones come",
  }),
  HISTORY_MAX_EVENTS_PER_HOME: integer({
    default: 1_000,
    minimum: 1,
    maximum: 100_000,
    description: 'The most history events kept per home; past it the oldest go first',
  }),
  BACKGROUND_MAX_LIVE_PER_KEY: integer({
    default: 10,
    minimum: 0,
    description:
      "Live lookups of one API key's background work (job items, watch checks) at once, apart from MAX_LIVE_PER_KEY; 0: no cap",
  }),
  REDIS_CLUSTER_NODES: opt(
    text({
      description:
        'Redis Cluster for the store and the job queues instead of REDIS_URL: a comma list of host:port seed nodes',
    }),
  ),
  WORK_IN_SERVICE: flag({
    default: true,
    description:
      'Lookup jobs, webhooks and watch checks also run inside the service process (false: only in `npm run worker` processes, on Redis; without it they run in the service regardless)',
  }),
  JOB_CONCURRENCY: integer({
    default: 2,
    minimum: 1,
    description: 'Chunks of lookup jobs (50 items each) one worker process runs at once',
  }),
  JOB_LOCK_MS: ms({
    default: 30_000,
    minimum: 1_000,
    description:
      "How long a job chunk's lock lasts unless its worker renews it; a killed worker's chunk is taken over after it",
  }),
  JOB_MAX_ACTIVE_PER_ACCOUNT: integer({
    default: 100,
    minimum: 1,
    description:
      'Lookup jobs one account may have queued or running at once, all instances together; past it 429 rate_limited (details.limit jobs_active)',
  }),
  // At least a full job's items, or a job of MAX_JOB_ITEMS could never be taken.
  JOB_MAX_QUEUED_ITEMS_PER_ACCOUNT: integer({
    default: 100_000,
    minimum: JOB_ITEMS_MAX,
    description:
      "Items of one account's queued or running jobs together, all instances together; past it 429 rate_limited (details.limit job_items_queued)",
  }),
  JOB_MAX_EVENT_STREAMS_PER_ACCOUNT: integer({
    default: 20,
    minimum: 1,
    description:
      'Job event streams one account may have open at once, all instances together; past it 429 rate_limited (details.limit event_streams)',
  }),
  WEBHOOK_ALLOW_PRIVATE: flag({
    default: false,
    description:
      'Webhook URLs may resolve to loopback, private or link-local addresses too (tests and the demo set it); other special-purpose addresses stay refused',
  }),
  WEBHOOK_TIMEOUT_MS: ms({ default: 10_000, minimum: 1, description: 'Limit of one webhook delivery attempt' }),
  WEBHOOK_RETRY_BASE_MS: ms({
    default: 90_000,
    minimum: 1,
    description: 'Delay before the first webhook retry; each next one doubles it (10 retries: about a day)',
  }),
  WATCH_MIN_INTERVAL_HOURS: integer({
    default: 24,
    minimum: 1,
    description: 'The shortest interval_hours a watch may ask for',
  }),
  // Fractions of a second (at least 0.1) let tests wait a few short checks instead of whole seconds.
  WATCH_MIN_INTERVAL_SECONDS: opt(
    decimal({
      minimum: 0.1,
      description:
        'Overrides WATCH_MIN_INTERVAL_HOURS in seconds (a fraction allowed, at least 0.1), and lets interval_hours be a fraction (tests)',
    }),
  ),
});
export type EnvValues = Static<typeof ENV>;

/**
 * How each variable becomes its field of Config: the field's name (`group.name` inside a group), or
 * `[name, conversion]` when the field is not the value as read (the conversion gets undefined for an unset
 * optional variable), or `{ derived: name }` when the variable is read, with others, by that field of
 * DERIVED. Config's type is computed from this table and DERIVED; a variable of ENV without its row here,
 * or a row without its variable, is a type error.
 */
const FIELDS = fields({
  NODE_ENV: ['production', isProduction],
  PORT: 'port',
  HOST: 'host',
  /** Null: the embedded in-memory store. */
  REDIS_URL: ['redisUrl', (url) => url ?? null],
  REDIS_PREFIX: 'redisPrefix',
  PORTAL_ORIGIN: ['portalOrigin', (origin) => origin.replace(/\/+$/, '')],
  PORTAL_SUGGEST_URL: 'portalSuggestUrl',
  PORTAL_PROXY_URL: { derived: 'portalProxyUrls' },
  PORTAL_PROXY_URLS: { derived: 'portalProxyUrls' },
  // site: the own collector's client of the site: sessions, pacing, retries, breaker, canary (docs/collector.md).
  PORTAL_MAX_CONCURRENCY: 'site.maxConcurrency',
  PORTAL_SESSION_DOCUMENTS: 'site.sessionDocuments',
  PORTAL_SESSION_MAX_AGE_MS: 'site.sessionMaxAgeMs',
  PORTAL_SESSION_GAP_MS: 'site.sessionGapMs',
  PORTAL_SESSION_WARMUP: 'site.warmUp',
  PORTAL_SESSION_RETRIES: 'site.retries',
  PORTAL_SELF_HOSTED_BUDGET_MS: 'site.budgetMs',
  PORTAL_BREAKER_PROBE_MS: 'site.breakerProbeMs',
  PORTAL_CANARY_ZPIDS: ['site.canaryZpids', (zpids) => (zpids === undefined ? [] : canaryZpids(zpids)!)],
  PORTAL_CANARY_INTERVAL_MS: 'site.canaryIntervalMs',
  /** Off leaves only the fallback provider. */
  SELF_HOSTED_ENABLED: 'selfHostedEnabled',
  FALLBACK_URL: ['fallback.url', (url) => url ?? null],
  FALLBACK_TOKEN: ['fallback.token', (token) => token ?? null],
  FALLBACK_ACTOR: ['fallback.actor', (actor) => actor ?? null],
  FALLBACK_MAX_COST_USD: 'fallback.maxCostUsd',
  FALLBACK_MAX_COST_CEILING_USD: 'fallback.maxCostCeilingUsd',
  FALLBACK_PROVIDER_NAME: 'fallback.name',
  ACCOUNTS_FILE: ['accountsFile', (file) => file ?? null],
  /** Null: every tool of the MCP server over stdio answers missing_api_key. */
  PORTAL_API_KEY: ['portalApiKey', (key) => key ?? null],
  API_KEY_SECRET: ['apiKeySecret', (secret) => secret ?? DEV_SECRET],
  BATCH_DEADLINE_MS: 'batchDeadlineMs',
  BATCH_CONCURRENCY: 'batchConcurrency',
  LOOKUP_TIMEOUT_MS: 'lookupTimeoutMs',
  PAGE_WORKERS: ['pageWorkers', (workers) => workers ?? availableParallelism()],
  PAGE_QUEUE_MAX: 'pageQueueMax',
  LIVE_LOOKUPS_ENABLED: 'liveLookupsEnabled',
  /** Null: unlimited. */
  DAILY_LIVE_LOOKUP_BUDGET: ['dailyLiveLookupBudget', (budget) => budget ?? null],
  /** Null: unlimited. */
  PAID_DAILY_LIVE_LOOKUP_BUDGET: ['paidDailyLiveLookupBudget', (budget) => budget ?? null],
  CACHE_TTL_MS: 'cacheTtlMs',
  INCOMPLETE_TTL_MS: 'incompleteTtlMs',
  STALE_TTL_MS: 'staleTtlMs',
  MEMORY_CACHE_MB: ['memoryCacheBytes', (mb) => mb * 1024 * 1024],
  /** 0: never trusted without the store. */
  AUTH_CACHE_TTL_MS: 'authCacheTtlMs',
  AMBIGUITY_MEMO_TTL_MS: 'ambiguityMemoTtlMs',
  UPGRADE_URL: 'upgradeUrl',
  DASHBOARD_URL: 'dashboardUrl',
  /**
   * Lifetime of a held reservation and of a single-flight lock unless their holder renews them
   * (every third of it while alive): a crashed instance's are freed this long after its last renewal.
   */
  LEASE_TTL_MS: 'leaseTtlMs',
  /** A Redis command unanswered this long while the process was mostly idle fails (store_unavailable). */
  REDIS_COMMAND_TIMEOUT_MS: 'redisCommandTimeoutMs',
  CREDIT_WAIT_MS: { derived: 'creditWaitMs' },
  IDEMPOTENCY_WAIT_MS: 'idempotencyWaitMs',
  IDEMPOTENCY_MAX_ANSWER_BYTES: 'idempotencyMaxAnswerBytes',
  LOG_LEVEL: 'logLevel',
  HEADERS_TIMEOUT_MS: 'headersTimeoutMs',
  REQUEST_TIMEOUT_MS: 'requestTimeoutMs',
  SHUTDOWN_GRACE_MS: 'shutdownGraceMs',
  KEYLESS_BURST: 'keylessBurst',
  KEYLESS_PER_SECOND: 'keylessPerSecond',
  /** Fastify's trustProxy: which X-Forwarded-For hops give the client address (the keyless budget's key). */
  TRUST_PROXY: ['trustProxy', (raw): TrustProxy => trustProxy(raw)!],
  LOG_PRETTY: 'logPretty',
  /** Null: no /metrics on the main port. */
  METRICS_TOKEN: ['metricsToken', (token) => token ?? null],
  /** Null: no separate /metrics listener. */
  METRICS_PORT: ['metricsPort', (port) => port ?? null],
  METRICS_HOST: 'metricsHost',
  RATE_LIMIT_PER_MINUTE: 'rateLimitPerMinute',
  MAX_LIVE_PER_KEY: 'maxLivePerKey',
  LEDGER_RETENTION_DAYS: ['ledgerRetentionMs', (days) => days * 86_400_000],
  // history: how long and how many events of each home's history the store keeps (store/history-store.ts).
  HISTORY_RETENTION_DAYS: ['history.retentionMs', (days) => days * 86_400_000],
  HISTORY_MAX_EVENTS_PER_HOME: 'history.maxEventsPerHome',
  BACKGROUND_MAX_LIVE_PER_KEY: 'backgroundMaxLivePerKey',
  /** Null: not a cluster. Exclusive with redisUrl. */
  REDIS_CLUSTER_NODES: ['redisClusterNodes', (nodes) => (nodes === undefined ? null : clusterNodes(nodes))],
  WORK_IN_SERVICE: 'workInService',
  JOB_CONCURRENCY: 'jobConcurrency',
  JOB_LOCK_MS: 'jobLockMs',
  // jobBounds: per-account bounds (all instances together) of jobs queued or running, their items, open job event streams.
  JOB_MAX_ACTIVE_PER_ACCOUNT: 'jobBounds.maxActive',
  JOB_MAX_QUEUED_ITEMS_PER_ACCOUNT: 'jobBounds.maxQueuedItems',
  JOB_MAX_EVENT_STREAMS_PER_ACCOUNT: 'jobBounds.maxEventStreams',
  WEBHOOK_ALLOW_PRIVATE: 'webhookAllowPrivate',
  WEBHOOK_TIMEOUT_MS: 'webhookTimeoutMs',
  WEBHOOK_RETRY_BASE_MS: 'webhookRetryBaseMs',
  WATCH_MIN_INTERVAL_HOURS: { derived: 'watchMinIntervalSeconds' },
  WATCH_MIN_INTERVAL_SECONDS: { derived: 'watchMinIntervalSeconds' },
});

/** The fields read from several variables (their rows in FIELDS name the field they feed). */
const DERIVED = {
  /** Outbound proxies for the listing site (PORTAL_PROXY_URL, `{session}` in it, or PORTAL_PROXY_URLS in turn); none: direct. */
  portalProxyUrls: (v: EnvValues): string[] =>
    v.PORTAL_PROXY_URL !== undefined
      ? [v.PORTAL_PROXY_URL]
      : v.PORTAL_PROXY_URLS !== undefined
        ? proxyList(v.PORTAL_PROXY_URLS)!
        : [],
  /** Lookups in flight settle within the lookup timeout, a crashed holder's within the lease: the credit wait covers both. */
  creditWaitMs: (v: EnvValues): number => v.CREDIT_WAIT_MS ?? v.LOOKUP_TIMEOUT_MS + v.LEASE_TTL_MS + 5_000,
  /** The shortest interval a watch may ask for, in seconds (WATCH_MIN_INTERVAL_SECONDS, else the hours). */
  watchMinIntervalSeconds: (v: EnvValues): number => v.WATCH_MIN_INTERVAL_SECONDS ?? v.WATCH_MIN_INTERVAL_HOURS * 3600,
} satisfies Record<string, (v: EnvValues) => unknown>;

/** A row of FIELDS for a variable whose value (undefined when unset) is V. */
type Row<V> =
  | string
  | readonly [field: string, convert: (value: V) => unknown]
  | { readonly derived: keyof typeof DERIVED };

/** FIELDS as written, checked to have one row per variable of ENV and no other. */
function fields<const T extends { readonly [N in keyof EnvValues]-?: Row<EnvValues[N]> }>(
  rows: T & Record<Exclude<keyof T, keyof EnvValues>, never>,
): T {
  return rows;
}

/** The field a row names (none for a variable read by DERIVED). */
type FieldName<R> = R extends string ? R : R extends readonly [infer F extends string, unknown] ? F : never;
/** The value of the field of variable N's row R: its conversion's result, else the variable's value as read. */
type FieldValue<N, R> = R extends readonly [string, (value: never) => infer T]
  ? T
  : N extends keyof EnvValues
    ? EnvValues[N]
    : never;
/** Every field of the table by its name (`group.name` inside a group). */
type Flat = {
  -readonly [N in keyof typeof FIELDS as FieldName<(typeof FIELDS)[N]>]: FieldValue<N, (typeof FIELDS)[N]>;
};
type GroupOf<F> = F extends `${infer G}.${string}` ? G : never;
/** The fields outside groups, then each group of `group.name` fields as an object. */
type Nested<F> = { [K in keyof F as K extends `${string}.${string}` ? never : K]: F[K] } & {
  [G in GroupOf<keyof F>]: { [K in keyof F as K extends `${G}.${infer Name}` ? Name : never]: F[K] };
};
type Derived = { [K in keyof typeof DERIVED]: ReturnType<(typeof DERIVED)[K]> };
/** No field named twice (by two rows, or by a row and DERIVED). */
type Unique<T> = { [N in keyof T]: FieldName<T[N]> & (FieldName<T[Exclude<keyof T, N>]> | keyof Derived) }[keyof T];
type Expect<T extends true> = T;
type FieldsNamedOnce = Expect<[Unique<typeof FIELDS>] extends [never] ? true : false>;

/** The configuration: FIELDS' fields and DERIVED's. */
export type Config = { [K in keyof (Nested<Flat> & Derived)]: (Nested<Flat> & Derived)[K] };

/** Checks across variables. */
const RULES: Array<EnvRule<EnvValues>> = [
  {
    uses: ['LEASE_TTL_MS', 'REDIS_COMMAND_TIMEOUT_MS'],
    check: (v) =>
      v.LEASE_TTL_MS >= LEASE_IN_COMMAND_TIMEOUTS * v.REDIS_COMMAND_TIMEOUT_MS
        ? null
        : `LEASE_TTL_MS (${v.LEASE_TTL_MS}) must be at least ${LEASE_IN_COMMAND_TIMEOUTS} × REDIS_COMMAND_TIMEOUT_MS (${v.REDIS_COMMAND_TIMEOUT_MS})`,
  },
  {
    // Node refuses a headers limit above the whole request's.
    uses: ['HEADERS_TIMEOUT_MS', 'REQUEST_TIMEOUT_MS'],
    check: (v) =>
      v.HEADERS_TIMEOUT_MS <= v.REQUEST_TIMEOUT_MS
        ? null
        : `HEADERS_TIMEOUT_MS (${v.HEADERS_TIMEOUT_MS}) must not exceed REQUEST_TIMEOUT_MS (${v.REQUEST_TIMEOUT_MS})`,
  },
  {
    uses: ['FALLBACK_URL', 'FALLBACK_TOKEN', 'FALLBACK_ACTOR'],
    check: (v) => {
      const set = { FALLBACK_URL: v.FALLBACK_URL, FALLBACK_TOKEN: v.FALLBACK_TOKEN, FALLBACK_ACTOR: v.FALLBACK_ACTOR };
      const missing = Object.entries(set)
        .filter(([, x]) => x === undefined)
        .map(([k]) => k);
      return missing.length === 0 || missing.length === 3
        ? null
        : `FALLBACK_URL, FALLBACK_TOKEN and FALLBACK_ACTOR are set together or not at all: ${missing.join(' and ')} missing`;
    },
  },
  {
    uses: ['FALLBACK_MAX_COST_USD', 'FALLBACK_MAX_COST_CEILING_USD'],
    check: (v) =>
      v.FALLBACK_MAX_COST_CEILING_USD >= v.FALLBACK_MAX_COST_USD
        ? null
        : `FALLBACK_MAX_COST_CEILING_USD (${v.FALLBACK_MAX_COST_CEILING_USD}) must not be below FALLBACK_MAX_COST_USD (${v.FALLBACK_MAX_COST_USD})`,
  },
  {
    // A batch takes one unit per lookup, all or none: a smaller window could never admit a full batch.
    uses: ['RATE_LIMIT_PER_MINUTE'],
    check: (v) =>
      v.RATE_LIMIT_PER_MINUTE === 0 || v.RATE_LIMIT_PER_MINUTE >= MAX_BATCH_ITEMS
        ? null
        : `RATE_LIMIT_PER_MINUTE (${v.RATE_LIMIT_PER_MINUTE}) must be 0 (no limit) or at least ${MAX_BATCH_ITEMS}, the lookups of a full batch`,
  },
  {
    // Keys hashed with the public development secret could be forged by anyone who reads this code.
    uses: ['NODE_ENV', 'API_KEY_SECRET'],
    check: (v) => {
      if (!isProduction(v.NODE_ENV)) return null;
      if (v.API_KEY_SECRET === undefined)
        return 'API_KEY_SECRET must be set when NODE_ENV is production (without it API keys are hashed with the public development secret)';
      if (v.API_KEY_SECRET === DEV_SECRET)
        return 'API_KEY_SECRET must not be the public development secret when NODE_ENV is production';
      return v.API_KEY_SECRET.length >= MIN_PRODUCTION_SECRET_LENGTH
        ? null
        : `API_KEY_SECRET must be at least ${MIN_PRODUCTION_SECRET_LENGTH} characters when NODE_ENV is production (got ${v.API_KEY_SECRET.length})`;
    },
  },
  {
    uses: ['TRUST_PROXY'],
    check: (v) =>
      trustProxy(v.TRUST_PROXY) !== null
        ? null
        : `TRUST_PROXY (${v.TRUST_PROXY}) must be false, true, or a comma list of addresses, CIDRs or loopback/linklocal/uniquelocal (not a hop count: Fastify 5 then ignores X-Forwarded-For)`,
  },
  {
    uses: ['PORTAL_PROXY_URL', 'PORTAL_PROXY_URLS'],
    check: (v) =>
      v.PORTAL_PROXY_URL === undefined || v.PORTAL_PROXY_URLS === undefined
        ? null
        : 'PORTAL_PROXY_URL and PORTAL_PROXY_URLS are exclusive: set one',
  },
  {
    uses: ['PORTAL_PROXY_URLS'],
    check: (v) =>
      v.PORTAL_PROXY_URLS === undefined || proxyList(v.PORTAL_PROXY_URLS) !== null
        ? null
        : 'PORTAL_PROXY_URLS must be a comma list of http://, https://, socks4:// or socks5:// URLs',
  },
  {
    uses: ['PORTAL_CANARY_ZPIDS'],
    check: (v) =>
      v.PORTAL_CANARY_ZPIDS === undefined || canaryZpids(v.PORTAL_CANARY_ZPIDS) !== null
        ? null
        : `PORTAL_CANARY_ZPIDS (${v.PORTAL_CANARY_ZPIDS}) must be a comma list of zpids (digits)`,
  },
  {
    uses: ['REDIS_URL', 'REDIS_CLUSTER_NODES'],
    check: (v) =>
      v.REDIS_URL === undefined || v.REDIS_CLUSTER_NODES === undefined
        ? null
        : 'REDIS_URL and REDIS_CLUSTER_NODES are exclusive: set one',
  },
  {
    uses: ['REDIS_CLUSTER_NODES'],
    check: (v) =>
      v.REDIS_CLUSTER_NODES === undefined || clusterNodes(v.REDIS_CLUSTER_NODES) !== null
        ? null
        : `REDIS_CLUSTER_NODES (${v.REDIS_CLUSTER_NODES}) must be a comma list of host:port`,
  },
  {
    // Two listeners cannot share a port; 0 picks a free one for each.
    uses: ['PORT', 'METRICS_PORT'],
    check: (v) =>
      v.METRICS_PORT === undefined || v.METRICS_PORT === 0 || v.METRICS_PORT !== v.PORT
        ? null
        : `METRICS_PORT (${v.METRICS_PORT}) must differ from PORT`,
  },
];

/** Fastify's trustProxy setting: false, true, or addresses/CIDRs (proxy-addr's names too). */
export type TrustProxy = boolean | string[];

const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** TRUST_PROXY read, or null when it is none of its forms (Fastify would only fail later, at start). */
export function trustProxy(raw: string): TrustProxy | null {
  const value = raw.trim();
  if (/^false$/i.test(value)) return false;
  if (/^true$/i.test(value)) return true;
  const entries = value.split(',').map((e) => e.trim());
  const valid = (entry: string): boolean => {
    if (PROXY_RANGE_NAMES.has(entry)) return true;
    const [address = '', prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    if (family === 0 || rest.length > 0) return false;
    return prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
  };
  return entries.every(valid) ? entries : null;
}

/** PORTAL_PROXY_URLS read: its URLs, or null when one is not a proxy URL. */
export function proxyList(raw: string): string[] | null {
  const urls = raw
    .split(',')
    .map((u) => u.trim())
    .filter((u) => u !== '');
  const valid = (u: string): boolean => URL.canParse(u) && /^(https?|socks[45]):$/.test(new URL(u).protocol);
  return urls.length > 0 && urls.every(valid) ? urls : null;
}

/** PORTAL_CANARY_ZPIDS read, or null when an entry is not a zpid. */
export function canaryZpids(raw: string): string[] | null {
  const zpids = raw
    .split(',')
    .map((z) => z.trim())
    .filter((z) => z !== '');
  return zpids.length > 0 && zpids.every((z) => /^\d{1,15}$/.test(z)) ? zpids : null;
}

/** REDIS_CLUSTER_NODES read: its host:port entries, or null when one is not of that form. */
export function clusterNodes(raw: string): string[] | null {
  const nodes = raw
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  const valid = (n: string): boolean => {
    const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(n);
    return m !== null && Number(m[2]) > 0 && Number(m[2]) <= 65_535;
  };
  return nodes.length > 0 && nodes.every(valid) ? nodes : null;
}

/** The configuration, or a ConfigError listing every problem of the environment. */
export function loadConfig(env: Env = process.env): Config {
  const v = readEnv(ENV, env, RULES);
  const config: Record<string, unknown> = {};
  for (const [name, row] of Object.entries(FIELDS) as Array<[keyof EnvValues, Row<unknown>]>) {
    if (typeof row === 'object' && 'derived' in row) continue;
    const [field, convert = (value: unknown) => value] = typeof row === 'string' ? [row] : row;
    const [outer, inner] = field.split('.') as [string, string?];
    const value = convert(v[name]);
    if (inner === undefined) config[outer] = value;
    else ((config[outer] ??= {}) as Record<string, unknown>)[inner] = value;
  }
  for (const [field, derive] of Object.entries(DERIVED)) config[field] = derive(v);
  return config as Config;
}

/** Exit code of a refused configuration (sysexits' EX_CONFIG). */
export const EXIT_CONFIG = 78;

/** For entry points: the configuration, or every problem on stderr (no stack) and exit EXIT_CONFIG. */
export function loadConfigOrExit(env: Env = process.env): Config {
  try {
    return loadConfig(env);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    process.stderr.write(e.report());
    process.exit(EXIT_CONFIG);
  }
}

/** True when the API-key secret was left at its development default. */
export const usesDevSecret = (c: Config): boolean => c.apiKeySecret === DEV_SECRET;

/** The store (and the job queues) live in Redis: one server (REDIS_URL) or a cluster (REDIS_CLUSTER_NODES). */
export const usesRedis = (c: Pick<Config, 'redisUrl' | 'redisClusterNodes'>): boolean =>
  c.redisUrl !== null || c.redisClusterNodes !== null;

/**
 * The start-up warning of every process that reads the listing site: in production, without a proxy, the
 * own collector reads from the server's own (datacenter) address, which the site's edge refuses outright.
 */
export function warnIfNoProxy(c: Config, logger: { warn(message: string): void }): void {
  if (c.production && c.liveLookupsEnabled && c.selfHostedEnabled && c.portalProxyUrls.length === 0) {
    logger.warn(
      "PORTAL_PROXY_URL and PORTAL_PROXY_URLS are not set: the own collector reads the listing site from this server's own address, " +
        'which the site walls (datacenter addresses are refused outright); nearly every live lookup will go to the fallback provider or fail. ' +
        'Set a residential or mobile proxy (docs/collector.md)',
    );
  }
}

/** The start-up warning of every process that hashes keys (the HTTP service, the MCP server over stdio). */
export function warnIfDevSecret(c: Config, logger: { warn(message: string): void }): void {
  if (usesDevSecret(c))
    logger.warn(
      'API_KEY_SECRET is not set or is the development default: API keys are hashed with the public development secret',
    );
}
