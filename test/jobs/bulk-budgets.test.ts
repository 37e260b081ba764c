// Bulk work on the key's background budget (issue 25, items 3 and 4), on Redis with BullMQ and the
// default per-key limits (600 lookups a minute, 10 live at once):
// - while a job of uncached homes runs (held at a gated site so it cannot end first), the same key's
//   interactive lookups of cached homes all answer 200: the job took no unit of the key's window;
// - a job of 2,000 items, more than the key's minute window, of cached homes completes: every item ok
//   and cached, no rate_limited, chunk runs at most 1.1 x its chunks, and the Redis commands it cost
//   per item are counted (bounded; the figure is printed for the bench notes);
// - the credits the jobs answer equal the ledger and `used`.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { authenticate } from '../../src/accounts/index.js';
import type { JobView } from '../../src/jobs/types.js';
import { startReplayServer } from '../../src/replay/server.js';
import type { Account } from '../../src/store/index.js';
import { RedisStore } from '../../src/store/redis.js';
import { startGatedProxy, type GatedProxy } from '../helpers/gated-proxy.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startTestService, type ReplayServer, type TestService } from '../helpers/service.js';
import { HeldTimeLimits } from '../helpers/time-limits.js';
import { follow, jobCharges, resultsOf } from './helpers.js';
import { manyHomesCatalog, manyZpids } from './many-homes.js';

const HOMES = manyZpids(733_000_000, 300);
/** Read by the key's interactive requests before the jobs: cached. */
const CACHED = HOMES.slice(0, 20);
const KEY = 'bulk_budget_key_0001';
/** Redis commands one cached item may cost, all told (the job's share of queue, store and cache calls). */
const MAX_COMMANDS_PER_CACHED_ITEM = 4;

let redis: RedisServer;
let site: ReplayServer;
let proxy: GatedProxy;
let svc: TestService;
let account: Account;
let probe: Redis;

const chunkRuns = async (): Promise<number> =>
  (await svc.app.core.metrics.jobChunkRuns.get()).values.reduce((n, v) => n + v.value, 0);

async function commandsSoFar(): Promise<number> {
  const info = await probe.info('commandstats');
  return [...info.matchAll(/calls=(\d+)/g)].reduce((n, m) => n + Number(m[1]), 0);
}

beforeAll(async () => {
  redis = await startRedisServer();
  site = await startReplayServer({ host: '127.0.0.1', port: 0, catalog: manyHomesCatalog(HOMES) });
  proxy = await startGatedProxy(site.origin, { open: true });
  const prefix = `bb${randomUUID().slice(0, 6)}:`;
  svc = await startTestService({
    replayServer: site,
    store: await RedisStore.connect(redis.url, { prefix }),
    accounts: { paid: { key: KEY, plan: 'paid', included: 100_000, overage: false } },
    env: { PORTAL_ORIGIN: proxy.origin, REDIS_URL: redis.url, REDIS_PREFIX: prefix },
    // A job item's wait for one of the key's background slots ends when a slot is free, never on the
    // clock (2 s by default): two chunks' items share ten slots, and an item whose wait a loaded machine
    // outlasted would be put off to a later run of its chunk, a run more than the count below allows.
    timeLimits: new HeldTimeLimits('background_slot_wait'),
  });
  account = await authenticate(svc.store, svc.config.apiKeySecret, KEY);
  await svc.app.background.startWorkers();
  probe = new Redis(redis.url);
  for (const zpid of CACHED) expect((await svc.get(`/v1/portal/property?zpid=${zpid}`, KEY)).status).toBe(200);
}, 60_000);

afterAll(async () => {
  probe?.disconnect();
  await svc?.close();
  await proxy?.close();
  await site?.close();
  if (redis) await disposeRedisServer(redis);
});

it("a job of uncached homes leaves the key's interactive lookups of cached homes all 200", async () => {
  const { jobs } = svc.app.background;
  const held = HOMES[HOMES.length - 1]!;
  const release = proxy.hold(held);
  const runsBefore = await chunkRuns();
  // 1,200 items (each uncached home four times), the held home last.
  const items = [
    ...HOMES.slice(CACHED.length),
    ...HOMES.slice(CACHED.length),
    ...HOMES.slice(CACHED.length),
    ...HOMES.slice(CACHED.length),
  ]
    .map((zpid) => ({ zpid }))
    .reverse();
  const job = await jobs.create(account, { items, webhookUrl: null, options: { raw: false } });
  await proxy.received(held);

  // 200 interactive lookups at once while the job cannot finish: every one answered from the cache.
  const answers = await Promise.all(
    Array.from({ length: 200 }, (_, i) => svc.get(`/v1/portal/property?zpid=${CACHED[i % CACHED.length]}`, KEY)),
  );
  expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
  expect(answers.every((a) => a.body.meta.cached === true)).toBe(true);
  expect((await jobs.get(account, job.id)).status).toBe('running');

  release();
  const final = (await follow(jobs, account, job.id)).pop()!;
  expect(final).toMatchObject({
    status: 'completed',
    done: items.length,
    succeeded: items.length,
    failed: 0,
    waiting: 0,
  });
  const lines = await resultsOf(jobs, account, job.id);
  expect(lines.filter((l) => !l.ok)).toEqual([]);
  // Each home read once for the job, whichever chunk read it; answered credits = ledger.
  expect(final.credits).toBe(HOMES.length - CACHED.length);
  expect(lines.reduce((n, l) => n + l.meta.credits, 0)).toBe(final.credits);
  expect(await jobCharges(svc.store, account.id, job.id)).toHaveLength(final.credits);
  expect((await chunkRuns()) - runsBefore).toBeLessThanOrEqual(Math.floor(1.1 * Math.ceil(items.length / 50)));
}, 120_000);

it('a job of 2,000 cached items, more than the minute window, completes without a wait or a rate_limited item', async () => {
  const { jobs } = svc.app.background;
  const items = Array.from({ length: 2_000 }, (_, i) => ({ zpid: HOMES[(i * 7) % HOMES.length]! }));
  const runsBefore = await chunkRuns();
  const commandsBefore = await commandsSoFar();
  const started = performance.now();
  const job = await jobs.create(account, { items, webhookUrl: null, options: { raw: false } });
  const final: JobView = (await follow(jobs, account, job.id)).pop()!;
  const seconds = (performance.now() - started) / 1000;
  const commands = (await commandsSoFar()) - commandsBefore;
  const runs = (await chunkRuns()) - runsBefore;
  console.log(
    `cached job: 2,000 items in ${seconds.toFixed(1)} s, ${runs} chunk runs for 40 chunks, ${(commands / items.length).toFixed(1)} Redis commands per item`,
  );

  expect(final).toMatchObject({
    status: 'completed',
    done: 2_000,
    succeeded: 2_000,
    failed: 0,
    cache_hits: 2_000,
    credits: 0,
  });
  const lines = await resultsOf(jobs, account, job.id);
  expect(lines.filter((l) => !l.ok || l.meta.cached !== true)).toEqual([]);
  expect(runs).toBeLessThanOrEqual(44);
  expect(commands / items.length).toBeLessThanOrEqual(MAX_COMMANDS_PER_CACHED_ITEM);

  // The books: what the key's lookups and jobs answered is its ledger and its use.
  const ledger = await svc.store.ledger(account.id);
  const period = new Date().toISOString().slice(0, 7);
  expect((await svc.store.usage(account.id, period)).used).toBe(ledger.length);
  expect(ledger).toHaveLength(HOMES.length);
}, 120_000);
