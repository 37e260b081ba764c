// 1,000 watches created at once by one key (issue 25, item 4), on Redis with BullMQ's schedulers and the
// default per-key limits: every one gets its first check, none fails for a budget. Checks draw on the
// key's background budget (no unit of its 600-a-minute window, background live slots they wait for) and
// the workers take them a few at a time, so the first checks spread over that budget; a check refused
// anyway runs again with backoff rather than waiting a whole interval. Before, 924 of 1,000 first checks
// failed rate_limited and the next check was 24 h later. Polled with a cap (no event marks "all checked").
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { authenticate } from '../../src/accounts/index.js';
import { MAX_WATCHES_PER_ACCOUNT } from '../../src/contract/index.js';
import { startReplayServer } from '../../src/replay/server.js';
import { RedisStore } from '../../src/store/redis.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startTestService, type ReplayServer, type TestService } from '../helpers/service.js';
import { manyHomesCatalog, manyZpids } from '../jobs/many-homes.js';

const HOMES = manyZpids(734_000_000, 100);
const KEY = 'many_watches_key_001';

let redis: RedisServer;
let site: ReplayServer;
let svc: TestService;

beforeAll(async () => {
  redis = await startRedisServer();
  site = await startReplayServer({ host: '127.0.0.1', port: 0, catalog: manyHomesCatalog(HOMES) });
  const prefix = `mw${randomUUID().slice(0, 6)}:`;
  svc = await startTestService({
    replayServer: site,
    store: await RedisStore.connect(redis.url, { prefix }),
    accounts: { paid: { key: KEY, plan: 'paid', included: 100_000, overage: false } },
    env: { REDIS_URL: redis.url, REDIS_PREFIX: prefix, WEBHOOK_ALLOW_PRIVATE: 'true' },
  });
}, 60_000);

afterAll(async () => {
  await svc?.close();
  await site?.close();
  if (redis) await disposeRedisServer(redis);
});

it('every one of 1,000 watches created at once gets its first check', async () => {
  expect(MAX_WATCHES_PER_ACCOUNT).toBe(1_000);
  const made = await Promise.all(
    Array.from({ length: 1_000 }, (_, i) =>
      svc.post(
        '/v1/portal/watches',
        { zpid: HOMES[i % HOMES.length], webhook_url: 'http://127.0.0.1:9/hook', interval_hours: 24 },
        KEY,
      ),
    ),
  );
  expect(made.map((r) => r.status)).toEqual(made.map(() => 201));
  await svc.app.background.startWorkers();

  const end = Date.now() + 150_000;
  let watches: Array<{ last_checked_at: string | null; last_error: string | null; home_zpid: string | null }> = [];
  for (;;) {
    watches = (await svc.get('/v1/portal/watches', KEY)).body.data;
    if (watches.every((w) => w.last_checked_at !== null) || Date.now() > end) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  expect(watches).toHaveLength(1_000);
  expect(watches.filter((w) => w.last_checked_at === null)).toEqual([]);
  expect(watches.filter((w) => w.last_error !== null)).toEqual([]);
  expect(new Set(watches.map((w) => w.home_zpid))).toEqual(new Set(HOMES));
  // The books: what the checks were charged is the ledger.
  const account = await authenticate(svc.store, svc.config.apiKeySecret, KEY);
  const used = (await svc.get('/v1/account', KEY)).body.data.used;
  expect(used).toBe((await svc.store.ledger(account.id)).length);
  expect(used).toBeGreaterThanOrEqual(HOMES.length);
}, 200_000);
