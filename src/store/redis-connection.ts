// One way to open a Redis connection for every part that uses Redis (the store, the rate limits, the
// job queues): to the server REDIS_URL names, or to the cluster REDIS_CLUSTER_NODES names. A part
// passes its own client options (timeouts, retries); on a cluster they apply to every node, and the
// cluster's own reconnection follows the part's retryStrategy.
//
// On a cluster, keys read or written together (one MGET, MULTI or script) must share a hash slot:
// `keySlot` tells a key's slot, so a part can group a read over many unrelated keys by slot.
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
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
    // A node's connection never reconnects by itself (ioredis: the cluster refreshes its slots and
    // reconnects instead, on the retry strategy given here) and queues while the cluster is not ready
    // only when the part wants an offline queue.
    const { enableOfflineQueue, lazyConnect, retryStrategy, enableReadyCheck, ...nodeOptions } = options;
    const clusterOptions: ClusterOptions = {
      redisOptions: nodeOptions,
      enableOfflineQueue: enableOfflineQueue ?? true,
      lazyConnect: lazyConnect ?? false,
      enableReadyCheck: enableReadyCheck ?? true,
      slotsRefreshTimeout: options.connectTimeout ?? 1000,
    };
    if (retryStrategy) clusterOptions.clusterRetryStrategy = (times: number) => retryStrategy(times);
    return new Cluster(target.redisClusterNodes.map(hostPort), clusterOptions);
  }
  if (!target.redisUrl) throw new Error('no Redis is configured (REDIS_URL or REDIS_CLUSTER_NODES)');
  return new Redis(target.redisUrl, options);
}

/** The configured Redis for messages: the URL without credentials, or the cluster's seed nodes. */
export function describeRedisTarget(target: RedisTarget): string {
  if (target.redisClusterNodes) return `cluster ${target.redisClusterNodes.join(',')}`;
  return (target.redisUrl ?? '').replace(/\/\/[^@/]*@/, '//***@');
}

// CRC16-CCITT (XModem), the hash of Redis Cluster slots.
const CRC16 = new Uint16Array(256);
for (let i = 0; i < 256; i++) {
  let c = i << 8;
  for (let b = 0; b < 8; b++) c = c & 0x8000 ? (c << 1) ^ 0x1021 : c << 1;
  CRC16[i] = c & 0xffff;
}

/** The hash slot of a key (0..16383): of its hash tag, the text in the first non-empty `{…}`, if any. */
export function keySlot(key: string): number {
  const open = key.indexOf('{');
  if (open !== -1) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) key = key.slice(open + 1, close);
  }
  let crc = 0;
  for (const byte of Buffer.from(key, 'utf8')) crc = ((crc << 8) & 0xffff) ^ CRC16[((crc >> 8) ^ byte) & 0xff]!;
  return crc & 0x3fff;
}
