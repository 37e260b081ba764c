// Webhook delivery on a real 3-master Redis Cluster (REDIS_CLUSTER_NODES): the BullMQ queue `webhooks`
// under its own hash tag; one instance queues, another's worker delivers, retried after a 500 with the
// same webhook-id, and the same event sent again is not a second delivery.
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/admin.js';
import { loadConfig } from '../../src/config.js';
import { RedisStore } from '../../src/store/redis.js';
import { createWebhooks, type WebhookDeps } from '../../src/webhooks/index.js';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster.js';
import { backendFor } from '../../src/backend.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';

let cluster: RedisCluster;
beforeAll(async () => {
  cluster = await startRedisCluster();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

describe('webhook delivery on a Redis Cluster', () => {
  it('queued by one instance, delivered by another after a retry, once per event', async () => {
    const prefix = `whc${randomUUID().slice(0, 6)}:`;
    const config = loadConfig({
      REDIS_CLUSTER_NODES: cluster.nodes,
      REDIS_PREFIX: prefix,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_BASE_MS: '5',
    });
    const store = await RedisStore.connect(
      { redisUrl: null, redisClusterNodes: cluster.nodeList },
      { prefix, commandTimeoutMs: 5000 },
    );
    const logs: { webhookId?: string; attempt?: number; status?: number }[] = [];
    const logger = pino({ level: 'info' }, { write: (l: string) => logs.push(JSON.parse(l)) });
    const deps: WebhookDeps = { config, store, logger, clock: () => new Date() };
    const producer = createWebhooks(deps, backendFor(config).webhookRunner(deps, logger));
    const consumer = createWebhooks(deps, backendFor(config).webhookRunner(deps, logger));
    const { account } = await createAccount(store, 'k', {});
    const receiver = await startWebhookReceiver({ secret: account.webhookSecret! });
    try {
      receiver.failNext(1);
      const event = { type: 'job.completed' as const, id: 'job_c', data: { id: 'job_c' } };
      const id = await producer.send(account, receiver.url, event);
      expect(await producer.send(account, receiver.url, event)).toBe(id);
      await consumer.startWorker();
      await receiver.waitFor((e) => e.length === 1, 20_000);
      expect(receiver.attempts.map((a) => [a.id, a.verified, a.status])).toEqual([
        [id, true, 500],
        [id, true, 204],
      ]);
    } finally {
      await receiver.close();
      await consumer.close();
      await producer.close();
      await store.close();
    }
  }, 60_000);
});
