import { usesRedis, type Config } from '../config.js';
import { MemoryStore } from './memory.js';
import type { Store } from './types.js';

/** The store named by the configuration: Redis when REDIS_URL or REDIS_CLUSTER_NODES is set, else in memory. */
export async function createStore(config: Config): Promise<Store> {
  if (!usesRedis(config)) return new MemoryStore(Date.now, config.memoryCacheBytes, config.ledgerRetentionMs);
  const { RedisStore } = await import('./redis.js');
  return RedisStore.connect(config, { prefix: config.redisPrefix, commandTimeoutMs: config.redisCommandTimeoutMs, ledgerRetentionMs: config.ledgerRetentionMs });
}
