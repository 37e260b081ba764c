// BullMQ on the configured Redis (one server or a cluster), the one engine behind lookup jobs, webhook
// deliveries and watch schedules. Each queue's keys carry their own hash tag ({jobs}, {webhooks},
// {watches}), so on a cluster a queue's keys share one slot, as BullMQ's scripts need, while the three
// queues spread over the nodes.
import type { QueueOptions } from 'bullmq';
import type { Config } from '../config.js';
import { createRedisClient, type RedisClient } from '../store/redis-connection.js';

export type QueueName = 'jobs' | 'webhooks' | 'watches';

/**
 * A connection for BullMQ: commands wait through a reconnection (maxRetriesPerRequest null, as BullMQ
 * requires for workers) instead of failing, since queued work must not be lost to a blip. Connection
 * errors reach the queues' and workers' own 'error' events while they are open; the listener here only
 * keeps a connection that outlives them (closed queue, reconnecting) from printing ioredis' unhandled-error noise.
 */
export function bullConnection(config: Pick<Config, 'redisUrl' | 'redisClusterNodes'>): RedisClient {
  const client = createRedisClient(config, {
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    connectTimeout: 2_000,
  });
  client.on('error', () => undefined);
  return client;
}

/** The queue's key prefix: REDIS_PREFIX, then the queue's hash tag. */
export const bullPrefix = (config: Pick<Config, 'redisPrefix'>, queue: QueueName): string =>
  `${config.redisPrefix}{${queue}}`;

/** Options of a Queue, Worker or QueueEvents of `queue` over `connection`. */
export const bullOptions = (
  config: Pick<Config, 'redisPrefix'>,
  queue: QueueName,
  connection: RedisClient,
): Pick<QueueOptions, 'connection' | 'prefix'> => ({
  connection,
  prefix: bullPrefix(config, queue),
});

/** How long a process's close waits for a BullMQ worker or queue to close before it closes their connections. */
export const CLOSE_WAIT_MS = 5_000;

/**
 * Waits for a BullMQ close at most CLOSE_WAIT_MS. A worker's close waits for its blocking connection, which
 * a Redis restarted or unreachable can keep waiting; the caller then disconnects the connections, and work
 * under way is taken over by another worker (BullMQ's stalled-job check), as after a crash.
 */
export async function closeWithin(closing: Promise<unknown> | undefined): Promise<void> {
  if (!closing) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    closing.catch(() => undefined),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS))),
  ]);
  clearTimeout(timer);
}
