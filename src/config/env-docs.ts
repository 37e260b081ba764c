// The docs page's Meaning of every variable of ENV (src/config.ts), the long form of its one-line
// description: docs/configuration.md is generated from ENV (names, order, defaults) and these texts
// (scripts/config-doc.ts, `npm run docs:config`). Markdown; links are relative to docs/. A variable
// added to ENV without its text here is a type error.
import type { ENV } from '../config.js';

export const ENV_DOCS: Record<keyof typeof ENV.properties, string> = {
  PORT: 'Port to listen on',
  HOST: 'Address to listen on',
  REDIS_URL: 'Redis for the store (`redis://host:6379/0`). Unset: the embedded in-memory store (one process only)',
  REDIS_PREFIX: 'Prefix of every Redis key',
  PORTAL_ORIGIN: "A link's path and query are requested from this origin, so a local server can stand in for the site",
  PORTAL_SUGGEST_URL: 'Used to resolve addresses to homes',
  PORTAL_PROXY_URL:
    "Outbound HTTP(S) proxy for reading the listing site; `{session}` in it is replaced by each session's id (a residential gateway's sticky session: one exit address per session). See [docs/collector.md](collector.md)",
  PORTAL_PROXY_URLS:
    'Outbound proxies, a comma list (`http`, `https`, `socks4`, `socks5`) used in turn, one per session; exclusive with `PORTAL_PROXY_URL`',
  PORTAL_MAX_CONCURRENCY:
    'Documents the own collector has in flight at the listing site at once (per process); batches, GraphQL, jobs and watches queue behind it',
  PORTAL_SESSION_DOCUMENTS: 'Documents one session (one cookie jar, one proxy session) reads before it is retired',
  PORTAL_SESSION_MAX_AGE_MS: 'A session older than this is retired',
  PORTAL_SESSION_GAP_MS: 'Gap between two documents of one session, jittered between half and one and a half of it',
  PORTAL_SESSION_WARMUP: "A new session first visits the site's home page (one more document per session)",
  PORTAL_SESSION_RETRIES:
    'Retries on a fresh session after a wall, 403, 429, proxy refusal, timeout or failed connection',
  PORTAL_SELF_HOSTED_BUDGET_MS:
    "The own collector's time for one read, retries included; then the fallback provider (never past `LOOKUP_TIMEOUT_MS`)",
  PORTAL_BREAKER_PROBE_MS: 'While the circuit breaker is open, one read this often still goes to the site',
  PORTAL_CANARY_ZPIDS: 'zpids the canary reads through the own collector alone (never billed or cached)',
  PORTAL_CANARY_INTERVAL_MS: 'How often the canary reads them (the first round 15 s after start)',
  SELF_HOSTED_ENABLED: 'The own collector; `false` leaves only the fallback provider',
  FALLBACK_URL:
    'The third-party scraping-actor platform used when the own collector is blocked or cannot read a page: its base URL (with `FALLBACK_TOKEN` and `FALLBACK_ACTOR`; see [fallback.md](fallback.md))',
  FALLBACK_TOKEN: "The fallback platform's token (required with `FALLBACK_URL`)",
  FALLBACK_ACTOR: "The fallback platform's actor, `owner/name` (e.g. `maxcopell/zillow-detail-scraper`)",
  FALLBACK_MAX_COST_USD:
    "Per-lookup cost cap sent with each run (`maxTotalChargeUsd`); raised to the actor's own minimum when that is higher (see [fallback.md](fallback.md))",
  FALLBACK_MAX_COST_CEILING_USD:
    'The highest cap the service may raise to. An actor whose minimum is above it gets no runs: fallback lookups fail with 503 `upstream_misconfigured` and the start-up log says why',
  FALLBACK_PROVIDER_NAME: 'Name reported in `meta.source.provider` for the fallback',
  ACCOUNTS_FILE: 'JSON array of accounts created or updated at start-up (see [accounts.md](accounts.md))',
  API_KEY_SECRET:
    'Server secret for the keyed hash of API keys. Set it in production (at least 16 characters, not the development default); changing it invalidates every key',
  NODE_ENV:
    '`production` (in any case, or `prod`): an `API_KEY_SECRET` that is missing, the development default or shorter than 16 characters stops the start-up instead of a warning. Other values are accepted and change nothing',
  PORTAL_API_KEY:
    'The API key the MCP server over stdio (`node dist/mcp/stdio.js`) acts as; unset: every tool answers `missing_api_key`. Not read by the HTTP service',
  BATCH_DEADLINE_MS: "Overall limit of a batch (and of a GraphQL operation's lookups)",
  BATCH_CONCURRENCY: 'Live lookups one request runs at once',
  LOOKUP_TIMEOUT_MS: 'Limit of one live read',
  PAGE_WORKERS: 'Worker threads that read listing pages (decode the data script, extract, map) off the event loop',
  PAGE_QUEUE_MAX:
    'Pages that may wait for a page worker; past that a live read is refused at once with 503 `upstream_busy` (`retry-after: 1`)',
  LIVE_LOOKUPS_ENABLED: '`false`: only cached homes are served; live lookups get 503 `live_lookups_disabled`',
  DAILY_LIVE_LOOKUP_BUDGET: 'Service-wide live lookups per UTC day (free plans)',
  PAID_DAILY_LIVE_LOOKUP_BUDGET: 'The same for paid plans, which draw on their own budget',
  CACHE_TTL_MS: 'Cache lifetime (24 h)',
  INCOMPLETE_TTL_MS:
    'How long a record with a section in `extraction_failed` is served from the cache (10 min) before the next lookup reads the page again ([Section completeness](sections.md))',
  STALE_TTL_MS:
    "How long a home's last good record is kept after its cache lifetime (30 days), for stale answers and change hints ([Freshness, stale answers and change hints](freshness.md)); `0`: not kept",
  MEMORY_CACHE_MB:
    'In-memory store only: the cached homes it keeps at most; past it, the least recently read are dropped (read again, and billed, on their next lookup). Address aliases and remembered ambiguous answers are each bounded to an eighth of it',
  AUTH_CACHE_TTL_MS:
    "How long an API key checked once is trusted without asking the store (remembered by its keyed hash, never the key). Any account change (revoke, key rotation, plan) empties every instance's key cache at once (Redis pub/sub); this bounds a notice missed while Redis was unreachable. `0`: ask the store on every request",
  AMBIGUITY_MEMO_TTL_MS: 'How long an `address_ambiguous` answer is remembered (1 h)',
  UPGRADE_URL: 'Link put in `credits_exhausted` errors',
  DASHBOARD_URL: 'Link put in `spend_limit_reached` errors',
  LEASE_TTL_MS:
    "Lifetime of a held reservation and of a single-flight lock unless their holder renews them (it does every third of it while alive): a crashed instance's credits and homes are free again within about this time. At least 3 × `REDIS_COMMAND_TIMEOUT_MS` (checked at start-up): a renewal may take a whole command timeout and fail, and the next must still land in time",
  REDIS_COMMAND_TIMEOUT_MS:
    'A Redis command unanswered this long while the process was mostly idle fails as `store_unavailable`; lease renewals are bounded by it alone (never held back by a busy process)',
  CREDIT_WAIT_MS:
    "How long a lookup refused while the account's lookups in flight hold what it needs waits for them to settle before the refusal is final",
  IDEMPOTENCY_WAIT_MS:
    'How long a retry with an `Idempotency-Key` waits for the first request with that key to answer, then 409 `idempotency_key_in_use` (see [Idempotent batches](idempotency.md))',
  IDEMPOTENCY_MAX_ANSWER_BYTES:
    'The largest answer (body bytes, before compression) kept 24 h for an `Idempotency-Key`; a larger one (a `raw=true` batch, say) is not kept: its retry runs again and bills nothing the first run billed',
  LOG_LEVEL: 'pino level (`silent` … `trace`). API keys are never logged',
  LOG_PRETTY:
    'Readable log lines (pino-pretty) instead of one JSON object per line. `pino-pretty` is a dependency, not a dev one, because the demo runs from the build with it',
  METRICS_TOKEN:
    'Bearer token for `GET /metrics` (Prometheus text) on the main port: `authorization: Bearer <token>`; a missing token is 401 `missing_api_key`, a wrong one 401 `invalid_api_key`. Unset: `/metrics` on the main port is 404 `route_not_found`',
  METRICS_PORT:
    'Serve `GET /metrics` on this port too, on a listener of its own without a token (for a private network or a sidecar); `0` picks a free port. It must differ from `PORT`; a port that cannot be bound stops the start-up',
  METRICS_HOST:
    'Address of the `METRICS_PORT` listener: loopback by default, since it asks no token; set `0.0.0.0` only on a private network',
  RATE_LIMIT_PER_MINUTE:
    'Lookups per API key and minute, all instances together (in Redis when `REDIS_URL` or `REDIS_CLUSTER_NODES` is set): a single lookup is one, a batch one per valid item (taken all or none), a GraphQL operation one per lookup it asks for (`property` fields and `properties` items, taken all or none before it runs). Past it 429 `rate_limited` with `retry-after`; `RateLimit-Policy` on every answer, `RateLimit` on the answers of requests that took units or were refused them. `0`: no limit; else at least 50 (a full batch)',
  BACKGROUND_MAX_LIVE_PER_KEY:
    "Live reads of one API key's background work (job items, watch checks) at once, all instances together, apart from `MAX_LIVE_PER_KEY`: a job never takes its key's interactive slots. Background work takes no unit of `RATE_LIMIT_PER_MINUTE`; a read that finds these slots held waits for one (at most `LOOKUP_TIMEOUT_MS`), and a job item still refused runs in a later round of its chunk, never failing (see [jobs.md](jobs.md)). `0`: no cap",
  LEDGER_RETENTION_DAYS:
    "How long a charge stays in the billing ledger (the Redis stream `{bill}:ledger`, or the memory store's list): each charge trims those older (on Redis `XADD MINID ~`, whole stream nodes, so about). 400 days keeps a year and a month, enough to reconcile any month of the last year; usage counters are kept apart and are not trimmed",
  HISTORY_RETENTION_DAYS:
    "How long a home's history events are kept ([history.md](history.md)): one event per successful live read of the home, read back by `GET /v1/portal/property/history`. Each append trims those older (on Redis `XTRIM MINID ~` on the home's stream, whole stream nodes, so about) and the home's stream expires this long after its last read; the memory store leaves out and sweeps the older ones",
  HISTORY_MAX_EVENTS_PER_HOME:
    'The most history events kept per home ([history.md](history.md)): past it the oldest go first (on Redis `XADD MAXLEN ~`, so about: up to a stream node more). 1,000 is almost three years of daily reads; the memory store also bounds the homes it keeps a history for (a quarter of `MEMORY_CACHE_MB`, the least recently used go first)',
  MAX_LIVE_PER_KEY:
    "Live reads of one API key's requests running at once, all instances together (a lookup that joins another's read of the same home holds none). One more waits for a slot when other lookups of its own request are under way (a batch, a GraphQL operation), at most until the request's deadline or `LOOKUP_TIMEOUT_MS`; a request with none under way is refused at once with 429 `rate_limited` (`details.limit: live_lookups`, `retry-after: 1`). `0`: no cap",
  REDIS_CLUSTER_NODES:
    'A Redis Cluster instead of `REDIS_URL` (exclusive with it): a comma list of `host:port` seed nodes. The store, cache, locks, billing scripts, rate limits and job queues all run on the cluster (see [scaling.md](scaling.md#redis-cluster))',
  WORK_IN_SERVICE:
    'Lookup jobs, webhook deliveries and watch checks also run inside the service process; `false`: only in `npm run worker` processes (on Redis; without it they run in the service whatever this says)',
  JOB_CONCURRENCY: 'Chunks of lookup jobs (50 items each) one worker process runs at once',
  JOB_LOCK_MS:
    "How long a job chunk's lock lasts unless its worker renews it: a killed worker's chunk is taken over by another worker after it",
  JOB_MAX_ACTIVE_PER_ACCOUNT:
    'Lookup jobs one account may have queued or running at once, all instances together (on Redis when the service uses it). Past it `POST /v1/portal/jobs` (and `createLookupJob`) is 429 `rate_limited` with `details: { limit: "jobs_active", max, active }` and `retry-after: 30`. A job stops counting when it is completed, failed or cancelled (at the cancel, not when its running chunks settle). See [jobs.md](jobs.md#bounds-per-account)',
  JOB_MAX_QUEUED_ITEMS_PER_ACCOUNT:
    'Items of one account\'s queued and running jobs together, all instances together; a job that would pass it is 429 `rate_limited` with `details: { limit: "job_items_queued", max, queued }` and `retry-after: 30`. At least 10,000 (one full job)',
  JOB_MAX_EVENT_STREAMS_PER_ACCOUNT:
    'Job event streams (`GET /v1/portal/jobs/<id>/events`) one account may have open at once, all instances together; one more is 429 `rate_limited` with `details: { limit: "event_streams", max }` and `retry-after: 5`. A stream stops counting when it ends (its client leaves, the job is final); a crashed instance\'s within a minute',
  WEBHOOK_ALLOW_PRIVATE:
    'Webhook URLs may resolve to loopback, private (CGNAT, unique-local, site-local) or link-local addresses too (tests and `npm run demo` set it); every other special-purpose address stays refused',
  WEBHOOK_TIMEOUT_MS: 'Limit of one webhook delivery attempt',
  WEBHOOK_RETRY_BASE_MS:
    'Delay before the first webhook retry; each next one doubles it (10 retries: about a day in all)',
  WATCH_MIN_INTERVAL_HOURS: 'The shortest `interval_hours` a watch may ask for',
  WATCH_MIN_INTERVAL_SECONDS:
    'Overrides `WATCH_MIN_INTERVAL_HOURS` in seconds (tests, a demo), a fraction allowed (at least `0.1`); `interval_hours` may be a fraction either way',
  HEADERS_TIMEOUT_MS:
    "Time a client has to send a request's headers; then 408 `request_timeout` and the connection is closed",
  REQUEST_TIMEOUT_MS:
    'Time a client has to send its whole request (headers and body). Only the receiving counts: a batch may then work up to `BATCH_DEADLINE_MS`',
  SHUTDOWN_GRACE_MS:
    "On SIGTERM, how long running requests may go on; then their lookups are aborted (reservations released) and they answer within 3 s. Keep it plus 3 s under the orchestrator's grace period (compose: 40 s). A second signal exits at once (code 1), and so does a stop still running 8 s past the grace (hence at most 2147475647)",
  KEYLESS_BURST:
    "Budget of `/graphql` requests without an API key (introspection, GraphiQL) per client address, in this process: the burst (refilled by `KEYLESS_PER_SECOND`); past it 429 `rate_limited` with `retry-after`. The address is the connection's, or the client `X-Forwarded-For` names when the connection comes from a proxy `TRUST_PROXY` trusts (else behind a proxy keyless clients share the proxy's budget)",
  KEYLESS_PER_SECOND:
    'Requests added back per second to the keyless `/graphql` budget of a client address (see `KEYLESS_BURST`)',
  TRUST_PROXY:
    "Fastify's `trustProxy`: the proxies whose `X-Forwarded-For` names the client (`request.ip`, the keyless budget's key). `false`: none; `true`: any peer (only when nothing but the proxy can reach the service); or a comma list of addresses, CIDRs or `loopback`/`linklocal`/`uniquelocal`. Not a hop count: Fastify 5 then ignores the header. Compose sets nginx's fixed address",
};
