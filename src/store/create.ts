import type { Config } from '../config.js';
import { MemoryStore } from './memory.js';
import type { Store } from './types.js';

/** The store named by the configuration: Redis when REDIS_URL is set, else in memory. */
export async function createStore(config: Config): Promise<Store> {
  if (!config.redisUrl) return new MemoryStore(Date.now, config.memoryCacheBytes);
  const { RedisStore } = await import('./redis.js');
  return RedisStore.connect(config.redisUrl, { prefix: config.redisPrefix, commandTimeoutMs: config.redisCommandTimeoutMs });
}
