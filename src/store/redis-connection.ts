// One way to open a Redis connection for every part that uses Redis (the store, the rate limits, the
// job queues): to the server REDIS_URL names, or to the cluster REDIS_CLUSTER_NODES names. A part
// passes its own client options (timeouts, retries); on a cluster they apply to every node.
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { Config } from '../config.js';

export type RedisClient = Redis | Cluster;

export type RedisTarget = Pick<Config, 'redisUrl' | 'redisClusterNodes'>;

/** The host and port of a `host:port` (IPv6 hosts in brackets). */
function hostPort(node: string): { host: string; port: number } {
  const at = node.lastIndexOf(':');
  return { host: node.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(node.slice(at + 1)) };
}

/** A client of the configured Redis (lazy when options.lazyConnect is set); throws when none is configured. */
export function createRedisClient(target: RedisTarget, options: RedisOptions): RedisClient {
  if (target.redisClusterNodes) {
    const { enableOfflineQueue, lazyConnect, ...nodeOptions } = options;
    return new Cluster(target.redisClusterNodes.map(hostPort), {
      redisOptions: nodeOptions,
      enableOfflineQueue,
      lazyConnect,
      clusterRetryStrategy: options.retryStrategy,
    });
  }
  if (!target.redisUrl) throw new Error('no Redis is configured (REDIS_URL or REDIS_CLUSTER_NODES)');
  return new Redis(target.redisUrl, options);
}
