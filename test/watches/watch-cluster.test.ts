// Watched homes on a real 3-master Redis Cluster (REDIS_CLUSTER_NODES): the watch store's scripts and
// pipelines keep to the account's slot ({watch:<account>}), the BullMQ job schedulers to the queue's
// ({watches}); a watch made over REST is checked by the service's workers and a price edited at the
// replay site gives one property.changed, verified with standardwebhooks.
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { authenticate } from '../../src/accounts/index.js';
import { parseLocator } from '../../src/contract/index.js';
import { bullConnection, bullOptions } from '../../src/queue/bull.js';
import { createRedisClient } from '../../src/store/redis-connection.js';
import { RedisStore } from '../../src/store/redis.js';
import { RedisWatchStore, type StoredWatch } from '../../src/watches/store.js';
import { accountWebhookSecret } from '../../src/webhooks/secret.js';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster.js';
import { recordedPage } from '../helpers/replay.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const ZPID = '15192198';
const PAGE = recordedPage(ZPID);
const OWN_PRICE = `\\"bathrooms\\":1,\\"price\\":850000,`;
/** The shortest interval the service allows (WATCH_MIN_INTERVAL_SECONDS), in seconds. */
const SECONDS = 0.2;

let cluster: RedisCluster;
let store: RedisStore;
let svc: TestService;
let receiver: WebhookReceiver;
const prefix = `wc${randomUUID().slice(0, 6)}:`;
beforeAll(async () => {
  cluster = await startRedisCluster();
  store = await RedisStore.connect(
    { redisUrl: null, redisClusterNodes: cluster.nodeList },
    { prefix, commandTimeoutMs: 5000 },
  );
  svc = await startTestService({
    store,
    env: {
      WATCH_MIN_INTERVAL_SECONDS: String(SECONDS),
      WEBHOOK_ALLOW_PRIVATE: 'true',
      REDIS_CLUSTER_NODES: cluster.nodes,
      REDIS_PREFIX: prefix,
    },
  });
  const account = await authenticate(svc.store, svc.config.apiKeySecret, svc.keys.free);
  receiver = await startWebhookReceiver({ secret: (await accountWebhookSecret(svc.store, account.id))! });
  await svc.app.background.startWorkers();
}, 60_000);
afterAll(async () => {
  await svc?.close();
  await store?.close();
  await receiver?.close();
  await cluster?.stop();
});

it('the watch store on the cluster: cap, compare-and-store, list and remove on the account slot', async () => {
  const watches = new RedisWatchStore(createRedisClient(svc.config, {}), `${prefix}t:`);
  try {
    const w = (id: string): StoredWatch => ({
      id,
      account: 'acct-c',
      locator: parseLocator({ zpid: ZPID }),
      webhook_url: 'https://example.com/h',
      interval_hours: 1,
      created_at: '2026-10-09T12:00:00.000Z',
      home_zpid: null,
      last_values: null,
      last_checked_at: null,
      last_error: null,
      stopped: false,
    });
    const added = await Promise.all(['a', 'b', 'c', 'd'].map((id) => watches.add(w(id), 2)));
    expect(added.filter(Boolean)).toHaveLength(2);
    const [first] = await watches.list('acct-c');
    const read = (await watches.get('acct-c', first!.id))!;
    const raced = await Promise.all([
      watches.update(read.watch, read.version),
      watches.update(read.watch, read.version),
    ]);
    expect(raced.filter(Boolean)).toHaveLength(1);
    expect(await watches.remove('acct-c', first!.id)).toBe(true);
    expect(await watches.list('acct-c')).toHaveLength(1);
  } finally {
    await watches.close();
  }
});

it('a watch over REST on the cluster: checked by the workers, one property.changed for a price change', async () => {
  const made = await svc.post('/v1/portal/watches', {
    zpid: ZPID,
    webhook_url: receiver.url,
    interval_hours: SECONDS / 3600,
  });
  expect(made.status).toBe(201);
  const id: string = made.body.data.id;
  await expect
    .poll(async () => (await svc.get(`/v1/portal/watches/${id}`)).body.data.home_zpid, {
      timeout: 30_000,
      interval: 50,
    })
    .toBe(ZPID);
  svc.replay.faults.set(PAGE.path, { body: PAGE.html.replace(OWN_PRICE, `\\"bathrooms\\":1,\\"price\\":790000,`) });
  const [event] = await receiver.waitFor((events) => events.length >= 1, 30_000);
  const billed = async () => (await svc.store.ledger()).filter((e) => e.requestId.startsWith(`watch:${id}:`)).length;
  const atEvent = await billed();
  await expect.poll(billed, { timeout: 30_000, interval: 50 }).toBeGreaterThanOrEqual(atEvent + 2);
  const del = await svc.fetch(`${svc.url}/v1/portal/watches/${id}`, {
    method: 'DELETE',
    headers: { 'x-api-key': svc.keys.free! },
  });
  expect(del.status).toBe(204);
  // Every check of the watch is over (the watches queue holds no job) and every event they queued is
  // delivered (the webhooks queue neither): still the one event, after all the checks that read the new price.
  const connection = bullConnection(svc.config);
  const queues = (['watches', 'webhooks'] as const).map(
    (name) => new Queue(name, bullOptions(svc.config, name, connection)),
  );
  try {
    const pending = async () => {
      const counts = await Promise.all(queues.map((q) => q.getJobCounts('wait', 'active', 'delayed', 'prioritized')));
      return counts.flatMap((c) => Object.values(c)).reduce((a, b) => a + b, 0);
    };
    await expect.poll(pending, { timeout: 30_000, interval: 50 }).toBe(0);
  } finally {
    for (const q of queues) await q.close();
    connection.disconnect();
  }
  expect(receiver.events).toHaveLength(1);
  expect(event!.data).toMatchObject({
    zpid: ZPID,
    changes: [{ field: 'price', from: 850_000, to: 790_000 }],
    data: { price: 790_000 },
  });
}, 90_000);
