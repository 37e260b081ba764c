// Watches when Redis is down: the key is still known (the auth cache), but the watch store and the
// schedule cannot be reached; making, listing, reading and deleting watches answer 503
// store_unavailable (never a 500, never a hung request), and work again once Redis is back (with its data:
// an append-only file).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RedisStore } from '../../src/store/redis.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

let redis: RedisServer;
let store: RedisStore;
let svc: TestService;
beforeAll(async () => {
  redis = await startRedisServer({ appendOnly: true });
  const prefix = `wo${randomUUID().slice(0, 6)}:`;
  store = await RedisStore.connect(redis.url, { prefix });
  svc = await startTestService({
    store,
    env: {
      WATCH_MIN_INTERVAL_SECONDS: '1',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      REDIS_URL: redis.url,
      REDIS_PREFIX: prefix,
      AUTH_CACHE_TTL_MS: '600000',
    },
  });
});
afterAll(async () => {
  await svc?.close();
  await store?.close();
  await disposeRedisServer(redis);
});

it('Redis down: every watch route answers 503 store_unavailable; back up, they work', async () => {
  const body = { zpid: '15192198', webhook_url: 'http://127.0.0.1:9/h', interval_hours: 2 };
  const made = await svc.post('/v1/portal/watches', body);
  expect(made.status).toBe(201);
  await redis.stop();
  for (const r of [
    await svc.post('/v1/portal/watches', body),
    await svc.get('/v1/portal/watches'),
    await svc.get(`/v1/portal/watches/${made.body.data.id}`),
  ]) {
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe('store_unavailable');
  }
  await redis.restart();
  await expect.poll(async () => (await svc.get('/v1/portal/watches')).status, { timeout: 20_000 }).toBe(200);
  expect((await svc.get('/v1/portal/watches')).body.data.map((w: { id: string }) => w.id)).toEqual([made.body.data.id]);
}, 60_000);
