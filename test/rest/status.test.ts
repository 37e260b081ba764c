// GET /v1/status and /status: the service's own figures, summed over every instance through the store.
// Two instances on one Redis take real traffic (homes read live on each, a home cached by the other, a
// failure, a bad parameter) and either one answers the figures of both; on the memory store the figures
// are the process's; the route needs no key, bills nothing, refuses query parameters (400 bad_param,
// never a 500) and answers 503 store_unavailable (never a 500) while the store is down.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LookupError } from '../../src/contract/index.js';
import { MemoryStore } from '../../src/store/index.js';
import { RedisStore } from '../../src/store/redis.js';
import { startReplayServer } from '../../src/replay/server.js';
import { switchableStore } from '../graphql/switchable-store.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { READ_CACHE_MS } from '../../src/observability/figures.js';
import { startTestService, type ReplayServer, type TestService } from '../helpers/service.js';

const KEY = 'test_status_key_0001';
const ACCOUNTS = { paid: { key: KEY, plan: 'paid' as const, included: 100 } };
const home = (zpid: string) => `/v1/portal/property?zpid=${zpid}`;

/** The lookups an instance counted in its own metrics (lookups_total), to show each holds only its own. */
const ownLookups = async (svc: TestService): Promise<number> =>
  (await svc.app.core.metrics.lookups.get()).values.reduce((n, v) => n + v.value, 0);

describe('two instances on one Redis', () => {
  let redis: RedisServer;
  let replay: ReplayServer;
  let stores: RedisStore[] = [];
  let a: TestService;
  let b: TestService;
  beforeAll(async () => {
    [redis, replay] = await Promise.all([startRedisServer(), startReplayServer({ host: '127.0.0.1', port: 0 })]);
    const prefix = `st${randomUUID().slice(0, 6)}:`;
    stores = await Promise.all([RedisStore.connect(redis.url, { prefix }), RedisStore.connect(redis.url, { prefix })]);
    a = await startTestService({ store: stores[0]!, replayServer: replay, accounts: ACCOUNTS });
    b = await startTestService({ store: stores[1]!, replayServer: replay, accounts: ACCOUNTS });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await Promise.all(stores.map((s) => s.close()));
    await replay?.close();
    await disposeRedisServer(redis);
  });

  it('either instance answers the figures of both', async () => {
    // A: two homes read live, one the site does not have.
    expect((await a.get(home('2146993218'), KEY)).body.meta).toMatchObject({ cached: false, credits: 1 });
    expect((await a.get(home('114303858'), KEY)).body.meta).toMatchObject({ cached: false, credits: 1 });
    expect((await a.get(home('999999999'), KEY)).body.error.code).toBe('not_found');
    // B: A's homes from the shared cache, one read live, one bad parameter.
    expect((await b.get(home('2146993218'), KEY)).body.meta).toMatchObject({ cached: true, credits: 0 });
    expect((await b.get(home('114303858'), KEY)).body.meta).toMatchObject({ cached: true, credits: 0 });
    expect((await b.get(home('15192198'), KEY)).body.meta).toMatchObject({ cached: false, credits: 1 });
    expect((await b.get(home('12x'), KEY)).body.error.code).toBe('bad_param');
    expect([await ownLookups(a), await ownLookups(b)]).toEqual([3, 4]);

    // B writes what it counted every few seconds (and when it closes); A writes its own before it reads.
    await b.app.core.figures.flush();
    const res = await a.get('/v1/status', null);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const { data } = res.body;
    for (const w of [data.last_hour, data.last_24_hours]) {
      expect(w).toMatchObject({
        lookups: 7,
        found: 5,
        served: { own_collector: 0.6, fallback: 0, cache: 0.4, stale: 0 },
        records: { count: 3 },
        errors: { total: 2, by_code: { not_found: 1, bad_param: 1 } },
      });
      // The not-found home was read too (and answered 404 by the site).
      expect(w.live_reads.count).toBeGreaterThanOrEqual(3);
      expect(w.live_reads.p50_ms).toBeGreaterThanOrEqual(0);
      expect(w.live_reads.p95_ms).toBeGreaterThanOrEqual(w.live_reads.p50_ms);
      expect(w.site_attempts.count).toBeGreaterThanOrEqual(3);
      expect(w.site_attempts.walled_share).toBe(0);
      expect(w.records.complete_share).toBeGreaterThanOrEqual(0);
    }
    expect(data.last_hour.minutes).toBe(60);
    expect(data.last_24_hours.minutes).toBe(1440);
    expect(data.breaker).toEqual({ state: 'closed', instances: 2, open: 0 });
    expect(Date.parse(data.generated_at)).not.toBeNaN();

    // B reads the same totals from the store.
    expect((await b.get('/v1/status', null)).body.data.last_hour).toEqual(data.last_hour);

    // Nothing in it names an account, a key or a home.
    const text = JSON.stringify(res.body);
    for (const secret of [KEY, 'paid', '2146993218', '114303858', '15192198', '999999999'])
      expect(text).not.toContain(secret);
  });
});

describe('on the memory store', () => {
  let svc: TestService;
  const { store, sw } = switchableStore(new MemoryStore());
  // The service's clock, moved by the test: a read of the figures is kept READ_CACHE_MS on it.
  let now = Date.now();
  beforeAll(async () => {
    svc = await startTestService({ store, accounts: ACCOUNTS, clock: () => new Date(now) });
  });
  afterAll(() => svc?.close());

  it('answers without a key, bills nothing, and its answer is read once per few seconds', async () => {
    expect((await svc.get(home('2146993218'), KEY)).status).toBe(200);
    expect((await svc.get(home('2146993218'), KEY)).status).toBe(200);
    const usedBefore = (await svc.get('/v1/account', KEY)).body.data.used;
    const reads = () => sw.calls.get('readFigures') ?? 0;

    const first = await svc.get('/v1/status', null);
    expect(first.status).toBe(200);
    expect(first.body.data.last_hour).toMatchObject({
      lookups: 2,
      found: 2,
      served: { own_collector: 0.5, cache: 0.5 },
    });
    // A wrong key changes nothing: the route reads none.
    const again = await svc.get('/v1/status', 'not-a-key');
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
    expect(reads()).toBe(1);
    expect((await svc.get('/v1/account', KEY)).body.data.used).toBe(usedBefore);
  });

  it.each([
    ['/v1/status?window=1h', 'window'],
    ['/v1/status?x=1&x=2', 'x'],
    ['/v1/status?%3Cscript%3E=1', '<script>'],
  ])('%s: 400 bad_param', async (path, param) => {
    const res = await svc.get(path, null);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'bad_param', details: { param } });
  });

  it('other methods are refused by the HTTP layer, never a 500', async () => {
    for (const method of ['POST', 'DELETE', 'PUT']) {
      const res = await svc.fetch(`${svc.url}/v1/status`, { method });
      expect(res.status, method).toBeLessThan(500);
      expect(res.status, method).toBeGreaterThanOrEqual(400);
    }
  });

  it('/status is the figures as a page; query parameters are ignored', async () => {
    const res = await svc.fetch(`${svc.url}/status?x=%3Cscript%3E`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain('Service status');
    expect(html).toContain('<td data-window="hour">2</td>');
    expect(html).not.toContain('<script');
  });

  it('a store that is down: 503 store_unavailable on both, never a 500; back when it is', async () => {
    // Past the few seconds a read is kept.
    now += READ_CACHE_MS + 1;
    // As the Redis store reports a lost connection (any other error would be a bug: 500 internal).
    sw.failing.set('readFigures', () => new LookupError('store_unavailable', { cause: new Error('connection lost') }));
    try {
      const res = await svc.get('/v1/status', null);
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('store_unavailable');
      expect(res.headers.get('retry-after')).toBe('30');
      const page = await svc.fetch(`${svc.url}/status`);
      expect(page.status).toBe(503);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await page.text()).toContain('cannot be read right now');
    } finally {
      sw.failing.clear();
    }
    expect((await svc.get('/v1/status', null)).status).toBe(200);
  });
});
