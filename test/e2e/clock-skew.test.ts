// A service whose clock is not Redis' (a year behind, a year ahead): what it writes still lives its whole
// lifetime, because every expiry is set on the store's clock (a relative TTL, or Redis' TIME), never at an
// absolute time from the service's clock. Two instances with the skewed clock on one real redis-server:
// a job made on one is found on the other at once, runs to the end on both instances' workers and keeps
// its keys for JOB_TTL_MS; an Idempotency-Key's answer is replayed by the other instance and kept 24 h; a
// home's record is kept its cache lifetime plus the stale window, and served from the cache.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountSeed } from '../../src/accounts/index.js';
import { JOB_TTL_MS } from '../../src/jobs/types.js';
import { IDEMPOTENCY_TTL_MS } from '../../src/lookup/idempotency.js';
import { startReplayServer } from '../../src/replay/server.js';
import { RedisStore } from '../../src/store/redis.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startTestService, type ReplayServer, type TestService } from '../helpers/service.js';

const YEAR_MS = 365 * 24 * 3600_000;
/** Slack for the time the test itself takes between a write and the PTTL read (not a timing assertion: an hour). */
const SLACK_MS = 3600_000;

let redis: RedisServer;
let site: ReplayServer;
let admin: Redis;
beforeAll(async () => {
  redis = await startRedisServer();
  site = await startReplayServer({ host: '127.0.0.1', port: 0 });
  admin = new Redis(redis.url);
});
afterAll(async () => {
  admin?.disconnect();
  await site?.close();
  await disposeRedisServer(redis);
});

describe.each([
  ['a year behind Redis', -YEAR_MS],
  ['a year ahead of Redis', YEAR_MS],
])('a service whose clock is %s', (_name, skewMs) => {
  const accounts = {
    a: { key: `skew_key_${skewMs < 0 ? 'behind' : 'ahead'}_01`, plan: 'free', allotment: 50 },
  } satisfies Record<string, AccountSeed>;
  const clock = () => new Date(Date.now() + skewMs);
  let prefix: string;
  let one: TestService;
  let two: TestService;
  beforeAll(async () => {
    prefix = `skew${randomUUID().slice(0, 6)}:`;
    const env = { REDIS_URL: redis.url, REDIS_PREFIX: prefix, RATE_LIMIT_PER_MINUTE: '1000' };
    one = await startTestService({
      store: await RedisStore.connect(redis.url, { prefix }),
      accounts,
      clock,
      replayServer: site,
      env,
    });
    two = await startTestService({
      store: await RedisStore.connect(redis.url, { prefix }),
      accounts,
      clock,
      replayServer: site,
      env,
    });
  });
  afterAll(async () => {
    for (const svc of [one, two]) {
      await svc?.close();
      await svc?.store.close();
    }
  });

  /** Every key under the prefix whose name matches, with its remaining lifetime (ms; -1 none). */
  async function lifetimes(pattern: RegExp): Promise<Map<string, number>> {
    const keys = (await admin.keys(`${prefix}*`)).filter((k) => pattern.test(k));
    return new Map(await Promise.all(keys.map(async (k) => [k, await admin.pttl(k)] as [string, number])));
  }

  it('a job made on one instance is found on the other at once, completes, and every key of it lives JOB_TTL_MS', async () => {
    for (const svc of [one, two]) await svc.app.background.startWorkers();
    const items = Array.from({ length: 60 }, (_, i) => ({ zpid: ['2146993218', '15192198', '114303858'][i % 3]! }));
    const made = await one.post('/v1/portal/jobs', { items }, accounts.a.key);
    expect(made.status, JSON.stringify(made.body)).toBe(202);
    const id = made.body.data.id as string;
    // Right after its 202, on the other instance: the job was not written already expired.
    const seen = await two.get(`/v1/portal/jobs/${id}`, accounts.a.key);
    expect(seen.status, JSON.stringify(seen.body)).toBe(200);
    expect(seen.body.data.created_at).toBe(made.body.data.created_at);

    let job: { status: string; done: number; credits: number } | undefined;
    for (let i = 0; i < 3000; i++) {
      const r = await two.get(`/v1/portal/jobs/${id}`, accounts.a.key);
      expect(r.status).toBe(200);
      job = r.body.data;
      if (job!.status === 'completed') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(job).toMatchObject({ status: 'completed', done: 60, credits: 3 });
    const results = await one.fetch(`${one.url}/v1/portal/jobs/${id}/results`, {
      headers: { 'x-api-key': accounts.a.key },
    });
    expect((await results.text()).trim().split('\n')).toHaveLength(60);
    // The job's own keys (job, items, chunks, results) and the account's index of jobs.
    const kept = await lifetimes(new RegExp(`\\{job:${id}\\}|\\{jobs:`));
    expect([...kept.keys()].some((k) => k.endsWith(':results:1'))).toBe(true);
    expect([...kept.keys()].some((k) => k.includes('{jobs:'))).toBe(true);
    for (const [key, left] of kept) {
      expect(left, key).toBeGreaterThan(JOB_TTL_MS - SLACK_MS);
      expect(left, key).toBeLessThanOrEqual(JOB_TTL_MS);
    }
    // And it is listed.
    const listed = await two.get('/v1/portal/jobs', accounts.a.key);
    expect(listed.body.data.map((j: { id: string }) => j.id)).toContain(id);
  });

  it("an Idempotency-Key's answer is replayed by the other instance and kept 24 h", async () => {
    const key = `skew-${randomUUID()}`;
    const body = JSON.stringify({ items: [{ zpid: '450233440' }] });
    const send = (svc: TestService) =>
      svc.fetch(`${svc.url}/v1/portal/batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': accounts.a.key, 'idempotency-key': key },
        body,
      });
    const first = await send(one);
    expect(first.status).toBe(200);
    const again = await send(two);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(await first.text());
    const kept = await lifetimes(/:idem:/);
    expect(kept.size).toBe(1);
    for (const [k, left] of kept) {
      expect(left, k).toBeGreaterThan(IDEMPOTENCY_TTL_MS - SLACK_MS);
      expect(left, k).toBeLessThanOrEqual(IDEMPOTENCY_TTL_MS);
    }
  });

  it("a home's record is kept its lifetime plus the stale window, and the other instance serves it from the cache", async () => {
    const read = await one.get('/v1/portal/property?zpid=999000101', accounts.a.key);
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body.meta).toMatchObject({ cached: false, credits: 1 });
    const hit = await two.get('/v1/portal/property?zpid=999000101', accounts.a.key);
    expect(hit.status).toBe(200);
    expect(hit.body.meta).toMatchObject({ cached: true, credits: 0 });
    const { cacheTtlMs, staleTtlMs } = one.config;
    const entry = await lifetimes(/entry4:.*999000101/);
    expect(entry.size).toBe(1);
    for (const [k, left] of entry) {
      expect(left, k).toBeGreaterThan(cacheTtlMs + staleTtlMs - SLACK_MS);
      expect(left, k).toBeLessThanOrEqual(cacheTtlMs + staleTtlMs);
    }
    const raw = await lifetimes(/raw4:.*999000101/);
    expect(raw.size).toBe(1);
    for (const [k, left] of raw) expect(left, k).toBeGreaterThan(cacheTtlMs - SLACK_MS);
  });
});
