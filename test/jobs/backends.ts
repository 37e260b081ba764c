// The store and the job store a jobs test runs a chunk against, by hand: the memory ones, or Redis ones on
// a redis-server (or a Redis Cluster) of the test's own, under a prefix of its own.
import { randomUUID } from 'node:crypto';
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
  if (backend === 'memory') {
    const store = new MemoryStore();
    const jobs = new MemoryJobStore();
    return {
      store,
      jobs,
      async close() {
        await jobs.close();
        await store.close();
      },
    };
  }
  const prefix = `${prefixTag}${randomUUID().slice(0, 6)}:`;
  const redis = backend === 'redis' ? await startRedisServer() : undefined;
  const cluster = backend === 'cluster' ? await startRedisCluster() : undefined;
  const target = redis
    ? { redisUrl: redis.url, redisClusterNodes: null }
    : { redisUrl: null, redisClusterNodes: cluster!.nodeList };
  const store = await RedisStore.connect(target, { prefix, commandTimeoutMs: 5_000 });
  const jobs = new RedisJobStore(createRedisClient(target, { maxRetriesPerRequest: 2 }), prefix);
  return {
    store,
    jobs,
    async close() {
      await jobs.close();
      await store.close();
      await disposeRedisServer(redis);
      await cluster?.stop();
    },
  };
}
