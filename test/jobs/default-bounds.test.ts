// Issue 25's case with the default bounds: one key posts 300 jobs of 50 items at once, on Redis with no
// worker running (WORK_IN_SERVICE=false: the jobs stay queued, so none finishes and frees its place).
// Exactly JOB_MAX_ACTIVE_PER_ACCOUNT (100) are taken; the other 200 are 429 rate_limited naming the bound.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RedisStore } from '../../src/store/redis.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

const KEY = 'default_bounds_key_1';
let redis: RedisServer;
let svc: TestService;

beforeAll(async () => {
  redis = await startRedisServer();
  const prefix = `db${randomUUID().slice(0, 6)}:`;
  svc = await startTestService({
    store: await RedisStore.connect(redis.url, { prefix }),
    accounts: { paid: { key: KEY, plan: 'paid', included: 100_000, overage: false } },
    env: { REDIS_URL: redis.url, REDIS_PREFIX: prefix, WORK_IN_SERVICE: 'false' },
  });
}, 60_000);

afterAll(async () => {
  await svc?.close();
  if (redis) await disposeRedisServer(redis);
});

it('300 jobs of 50 items at once: 100 taken, 200 refused 429 jobs_active', async () => {
  const items = Array.from({ length: 50 }, (_, i) => ({ zpid: String(800_000_000 + i) }));
  const answers = await Promise.all(Array.from({ length: 300 }, () => svc.post('/v1/portal/jobs', { items }, KEY)));
  const taken = answers.filter((a) => a.status === 202);
  const refused = answers.filter((a) => a.status === 429);
  expect(taken).toHaveLength(100);
  expect(refused).toHaveLength(200);
  for (const r of refused) {
    expect(r.body.error).toMatchObject({ code: 'rate_limited', details: { limit: 'jobs_active', max: 100 } });
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  }
  const listed = (await svc.get('/v1/portal/jobs?limit=100', KEY)).body.data;
  expect(listed).toHaveLength(100);
  expect(listed.every((j: { status: string }) => j.status === 'queued')).toBe(true);
}, 60_000);
