// What a jobs test runs a chunk against, by hand: the store and the job store (the memory ones, or Redis ones
// on a redis-server or a Redis Cluster of the test's own, under a prefix of its own), and the key's slots.
import { randomUUID } from 'node:crypto';
import { MemoryRateLimiter, type SlotPool } from '../../src/accounts/rate-limit.js';
import { RedisJobStore } from '../../src/jobs/redis-store.js';
import { MemoryJobStore, type JobStore } from '../../src/jobs/store.js';
import { createRedisClient } from '../../src/store/redis-connection.js';
import { RedisStore } from '../../src/store/redis.js';
import { MemoryStore, type Store } from '../../src/store/index.js';
import { startRedisCluster } from '../helpers/redis-cluster.js';
import { disposeRedisServer, startRedisServer } from '../helpers/redis-server.js';

export type Backend = 'memory' | 'redis' | 'cluster';

export interface JobBackend {
  store: Store;
  jobs: JobStore;
  /** Closes both stores and stops the Redis the backend started. */
  close(): Promise<void>;
}

export async function jobBackend(backend: Backend, prefixTag: string): Promise<JobBackend> {
  if (backend === 'memory') return withClose(new MemoryStore(), new MemoryJobStore());
  const prefix = `${prefixTag}${randomUUID().slice(0, 6)}:`;
  const redis = backend === 'redis' ? await startRedisServer() : undefined;
  const cluster = backend === 'cluster' ? await startRedisCluster() : undefined;
  const target = redis
    ? { redisUrl: redis.url, redisClusterNodes: null }
    : { redisUrl: null, redisClusterNodes: cluster!.nodeList };
  const store = await RedisStore.connect(target, { prefix, commandTimeoutMs: 5_000 });
  const jobs = new RedisJobStore(createRedisClient(target, { maxRetriesPerRequest: 2 }), prefix);
  return withClose(store, jobs, async () => {
    await disposeRedisServer(redis);
    await cluster?.stop();
  });
}

const withClose = (store: Store, jobs: JobStore, after = async () => {}): JobBackend => ({
  store,
  jobs,
  async close() {
    await jobs.close();
    await store.close();
    await after();
  },
});

/**
 * The key's background slots as the key's other chunks would hold them: the next `refuse` holds of the background
 * pool are refused (Infinity: all), each counted in `refusals`.
 */
export class HeldSlots extends MemoryRateLimiter {
  refuse = 0;
  refusals = 0;

  override async holdLive(
    accountId: string,
    wait?: AbortSignal,
    pool: SlotPool = 'interactive',
  ): Promise<(() => void) | null> {
    if (this.refuse > 0 && pool === 'background') {
      this.refuse -= 1;
      this.refusals += 1;
      return null;
    }
    return super.holdLive(accountId, wait, pool);
  }
}

/** The job store of a worker that dies just before its settle. */
export function dying(jobs: JobStore): JobStore {
  return new Proxy(jobs, {
    get(target, p) {
      if (p === 'settleChunk')
        return async () => {
          throw new Error('worker died');
        };
      const v = Reflect.get(target, p, target) as unknown;
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}
