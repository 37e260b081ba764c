// Where state and queued work live, decided once from the configuration: on Redis when REDIS_URL or
// REDIS_CLUSTER_NODES is set (shared by every instance and worker, BullMQ for the queues), else in this
// process (lost on restart). Everything that has a memory and a Redis form is made here: the store, the
// per-key limiter, the job store and chunk runner, the watch store and schedule, the webhook runner and
// its attempt log.
import type { Logger } from 'pino';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from './accounts/rate-limit.js';
import { usesRedis, type Config } from './config.js';
import type { JobsParts } from './jobs/index.js';
import { BullChunkRunner, MemoryChunkRunner } from './jobs/runner.js';
import { MemoryJobStore } from './jobs/store.js';
import { RedisJobStore } from './jobs/redis-store.js';
import { JOB_TTL_MS } from './jobs/types.js';
import { FailFastRedis } from './store/fail-fast.js';
import { MemoryStore, type Store } from './store/index.js';
import type { WatchesParts } from './watches/index.js';
import { BullScheduler, TimerScheduler } from './watches/schedule.js';
import { MemoryWatchStore, RedisWatchStore, type WatchStore } from './watches/store.js';
import {
  bullWebhookRunner,
  MemoryDeliveryLog,
  memoryWebhookRunner,
  RedisDeliveryLog,
  type WebhookDeps,
  type WebhookRunner,
} from './webhooks/index.js';

export interface Backend {
  /** State and work are shared by every process (Redis): workers may run apart from the service. */
  readonly shared: boolean;
  store(): Promise<Store>;
  rateLimiter(logger: Logger, now: () => number): RateLimiter;
  jobs(logger: Logger, now: () => number): JobsParts;
  /** The watch store is opened on first use: a service that never touches watches opens no connection for them. */
  watches(logger: Logger, newId: () => string): WatchesParts;
  webhookRunner(deps: WebhookDeps, logger: Logger): WebhookRunner;
}

/** A client of the job or watch store under the store's outage rule (store/fail-fast.ts): 503 within the command timeout. */
const failFast = (config: Config) => new FailFastRedis(config, config.redisCommandTimeoutMs);

export function backendFor(config: Config): Backend {
  const limits = {
    perMinute: config.rateLimitPerMinute,
    maxLive: config.maxLivePerKey,
    maxBackgroundLive: config.backgroundMaxLivePerKey,
  };
  if (!usesRedis(config)) {
    return {
      shared: false,
      store: async () => new MemoryStore(Date.now, config.memoryCacheBytes, config.ledgerRetentionMs, config.history),
      rateLimiter: (_logger, now) => new MemoryRateLimiter(limits, now),
      jobs: (logger, now) => ({
        store: new MemoryJobStore(now),
        runner: new MemoryChunkRunner(config.jobConcurrency, logger),
      }),
      watches: (_logger, newId) => {
        const store = new MemoryWatchStore();
        return { store: () => store, scheduler: new TimerScheduler(newId) };
      },
      webhookRunner: (deps, logger) =>
        memoryWebhookRunner(deps, logger, new MemoryDeliveryLog(() => deps.clock().getTime())),
    };
  }
  return {
    shared: true,
    async store() {
      const { RedisStore } = await import('./store/redis.js');
      return RedisStore.connect(config, {
        prefix: config.redisPrefix,
        commandTimeoutMs: config.redisCommandTimeoutMs,
        ledgerRetentionMs: config.ledgerRetentionMs,
        history: config.history,
      });
    },
    rateLimiter(logger, now) {
      // Without limits there is nothing to share: no connection of its own.
      if (limits.perMinute === 0 && limits.maxLive === 0 && limits.maxBackgroundLive === 0)
        return new MemoryRateLimiter(limits, now);
      return new RedisRateLimiter(limits, {
        url: config.redisUrl,
        clusterNodes: config.redisClusterNodes,
        prefix: config.redisPrefix,
        commandTimeoutMs: config.redisCommandTimeoutMs,
        leaseTtlMs: config.leaseTtlMs,
        logger,
      });
    },
    jobs(logger) {
      const redis = failFast(config);
      return {
        store: new RedisJobStore(redis.client, config.redisPrefix, JOB_TTL_MS, redis.run),
        runner: new BullChunkRunner(config, logger),
      };
    },
    watches(logger) {
      let store: WatchStore | null = null;
      const open = () => {
        const redis = failFast(config);
        return new RedisWatchStore(redis.client, config.redisPrefix, redis.run);
      };
      return { store: () => (store ??= open()), scheduler: new BullScheduler(config, logger) };
    },
    webhookRunner(deps, logger) {
      // The attempt log: read by requests, so under the outage rule as the job and watch stores.
      const redis = failFast(config);
      const deliveries = new RedisDeliveryLog(
        redis.client,
        config.redisPrefix,
        () => deps.clock().getTime(),
        redis.run,
      );
      return bullWebhookRunner(deps, logger, deliveries);
    },
  };
}
