// Followers hold nothing (issue 25, item 2): 200 concurrent asks of 10 uncached homes by one key, on two
// instances sharing one Redis, while the site holds every read at a gate. Only the lookup that actually
// reads a home holds one of the key's 10 live slots; the 190 that join a read (in their process, or
// through the cross-instance lock) hold none, so none is refused for the live cap. Before, a follower took
// a slot before joining the flight: with the 10 readers holding all 10, every follower was answered 429.
// 200 × 200, 10 site reads, 10 charges.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AccountSeed } from '../../src/accounts/index.js';
import { startReplayServer } from '../../src/replay/server.js';
import { RedisStore } from '../../src/store/redis.js';
import { startGatedProxy, type GatedProxy } from '../helpers/gated-proxy.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startTestService, type ReplayServer, type TestService } from '../helpers/service.js';

const HOMES = [
  '2146993218',
  '15192198',
  '114303858',
  '450233440',
  '999000101',
  '999000102',
  '999000103',
  '999000104',
  '999000105',
  '999000106',
];
const ACCOUNTS = { k: { key: 'followers_key_0001', plan: 'free', allotment: 100 } } satisfies Record<
  string,
  AccountSeed
>;

let redis: RedisServer;
let site: ReplayServer;
let gate: GatedProxy;
const services: TestService[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
  site = await startReplayServer({ host: '127.0.0.1', port: 0 });
  gate = await startGatedProxy(site.origin);
  const prefix = `fol${randomUUID().slice(0, 6)}:`;
  for (let i = 0; i < 2; i++) {
    services.push(
      await startTestService({
        store: await RedisStore.connect(redis.url, { prefix }),
        replayServer: site,
        accounts: ACCOUNTS,
        // The key's limits as in production (10 live slots, 600 a minute), on the shared Redis; every read held at once.
        env: {
          REDIS_URL: redis.url,
          REDIS_PREFIX: prefix,
          PORTAL_ORIGIN: gate.origin,
          PORTAL_MAX_CONCURRENCY: String(HOMES.length),
        },
      }),
    );
  }
});

afterAll(async () => {
  for (const s of services) {
    await s.close();
    await s.store.close();
  }
  await gate?.close();
  await site?.close();
  await disposeRedisServer(redis);
});

it('200 concurrent asks of 10 uncached homes by one key on two instances: 200 answered, 10 site reads, 10 charges', async () => {
  const asks = Array.from({ length: 200 }, (_, i) =>
    services[i % 2]!.get(`/v1/portal/property?zpid=${HOMES[i % HOMES.length]}`, ACCOUNTS.k.key),
  );
  // Every home's read is held at the site (its reader holds a slot); the others ask meanwhile.
  await gate.arrived(HOMES.length);
  gate.open();
  const answers = await Promise.all(asks);
  const statuses = answers.map((a) => a.status);
  expect(
    statuses.filter((s) => s !== 200),
    JSON.stringify(answers.find((a) => a.status !== 200)?.body),
  ).toEqual([]);
  // One read of each home's page (its zpid link, then the slugged page it redirects to), one charge each.
  const pageReads = site.requests.filter((r) => !/^\/homedetails\/\d+_zpid\/$/.test(r.path));
  expect(pageReads).toHaveLength(HOMES.length);
  const ledger = await services[0]!.store.ledger();
  expect(ledger.map((e) => e.cacheKey).sort()).toEqual(HOMES.map((z) => `zpid:${z}`).sort());
  expect(answers.reduce((n, a) => n + a.body.meta.credits, 0)).toBe(HOMES.length);
});
