// Per-key limits (issue 12): lookups per minute (a batch and a GraphQL operation count their lookups)
// and live lookups at once; 429 rate_limited in the envelope with retry-after; the IETF RateLimit-Policy
// and RateLimit headers; on one real Redis, shared by two instances. Windows are pinned by the service
// clock (memory) or checked for a roll-over (Redis); the live cap is held by a gate, never a sleep.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import pino from 'pino';
import { authenticate, hashApiKey, seededAccountId } from '../../src/accounts/index.js';
import { MemoryRateLimiter, RedisRateLimiter } from '../../src/accounts/rate-limit.js';
import { startReplayServer } from '../../src/replay/server.js';
import { RedisStore } from '../../src/store/redis.js';
import { startGatedProxy } from '../helpers/gated-proxy.js';
import { watchKeys } from '../helpers/key-events.js';
import { disposeRedisServer, freePort, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startTestService, type ReplayServer, type TestService } from '../helpers/service.js';

const POLICY = '"default";q=50;w=60';
/** 00:00:10 of a minute: the window has 50 s left. */
const fixedClock = () => new Date('2026-11-23T12:00:10.000Z');
const zpids = (n: number) => Array.from({ length: n }, () => ({ zpid: '2146993218' }));
const window = (header: string | null) => {
  const m = /^"default";r=(\d+);t=(\d+)$/.exec(header ?? '');
  if (!m) throw new Error(`not a RateLimit field: ${header}`);
  return { r: Number(m[1]), t: Number(m[2]) };
};

describe('MemoryRateLimiter', () => {
  it('takes units all or none, and starts again with the next window', async () => {
    let now = Date.parse('2026-11-23T12:00:59.500Z');
    const limiter = new MemoryRateLimiter({ perMinute: 50, maxLive: 2 }, () => now);
    expect(await limiter.take('a', 30)).toEqual({
      allowed: true,
      window: { limit: 50, remaining: 20, resetSeconds: 1 },
    });
    expect(await limiter.take('a', 21)).toEqual({
      allowed: false,
      window: { limit: 50, remaining: 20, resetSeconds: 1 },
    });
    expect((await limiter.take('b', 50)).allowed).toBe(true);
    now += 500;
    expect(await limiter.take('a', 21)).toEqual({
      allowed: true,
      window: { limit: 50, remaining: 29, resetSeconds: 60 },
    });
  });

  it('gives units back to the window still current, never below zero used', async () => {
    let now = Date.parse('2026-11-23T12:00:30.000Z');
    const limiter = new MemoryRateLimiter({ perMinute: 50, maxLive: 2 }, () => now);
    expect((await limiter.take('a', 50)).allowed).toBe(true);
    await limiter.give('a', 2);
    expect(await limiter.take('a', 3)).toMatchObject({ allowed: false, window: { remaining: 2 } });
    expect(await limiter.take('a', 2)).toMatchObject({ allowed: true, window: { remaining: 0 } });
    await limiter.give('a', 100);
    expect(await limiter.take('a', 0)).toMatchObject({ window: { remaining: 50 } });
    // A give after the window rolled over leaves the new window as it is.
    expect((await limiter.take('a', 10)).allowed).toBe(true);
    now += 60_000;
    await limiter.give('a', 5);
    expect(await limiter.take('a', 0)).toMatchObject({ window: { remaining: 50 } });
  });

  it('keeps the background pool of live slots apart from the interactive one', async () => {
    const limiter = new MemoryRateLimiter({ perMinute: 0, maxLive: 1, maxBackgroundLive: 2 });
    const mine = await limiter.holdLive('a');
    expect(await limiter.holdLive('a')).toBeNull();
    const bg = [
      await limiter.holdLive('a', undefined, 'background'),
      await limiter.holdLive('a', undefined, 'background'),
    ];
    expect(bg.map((r) => typeof r)).toEqual(['function', 'function']);
    expect(await limiter.holdLive('a', undefined, 'background')).toBeNull();
    mine!();
    expect(await limiter.holdLive('a', undefined, 'background')).toBeNull();
    expect(typeof (await limiter.holdLive('a'))).toBe('function');
  });

  it('holds live slots per account; a release frees one, twice is once', async () => {
    const limiter = new MemoryRateLimiter({ perMinute: 0, maxLive: 2 });
    const one = await limiter.holdLive('a');
    const two = await limiter.holdLive('a');
    expect(await limiter.holdLive('a')).toBeNull();
    expect(await limiter.holdLive('b')).not.toBeNull();
    one!();
    one!();
    const three = await limiter.holdLive('a');
    expect(three).not.toBeNull();
    expect(await limiter.holdLive('a')).toBeNull();
    two!();
    three!();
  });
});

describe('RedisRateLimiter without its Redis', () => {
  it('lets requests through (no window to report) and warns, rather than refusing what a healthy store could serve', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = pino(
      { level: 'warn' },
      { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) },
    );
    const limiter = new RedisRateLimiter(
      { perMinute: 50, maxLive: 1 },
      {
        url: `redis://127.0.0.1:${await freePort()}`,
        prefix: 'rl-down:',
        commandTimeoutMs: 200,
        leaseTtlMs: 900,
        logger,
      },
    );
    try {
      expect(await limiter.take('a', 50)).toEqual({ allowed: true, window: null });
      expect(await limiter.take('a', 50)).toEqual({ allowed: true, window: null });
      const one = await limiter.holdLive('a');
      const two = await limiter.holdLive('a');
      expect([typeof one, typeof two]).toEqual(['function', 'function']);
      expect(lines.filter((l) => l.level === 40)).toHaveLength(1);
    } finally {
      await limiter.close();
    }
  });
});

describe('lookups per minute, in memory', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ env: { RATE_LIMIT_PER_MINUTE: '50' }, clock: fixedClock });
  });
  afterAll(() => svc.close());

  it('a batch takes a unit per lookup; past the limit 429 rate_limited with retry-after and the RateLimit fields', async () => {
    const key = svc.keys.paid!;
    const health = await svc.get('/healthz', null);
    expect(health.headers.get('ratelimit-policy')).toBe(POLICY);
    expect(health.headers.get('ratelimit')).toBeNull();

    const one = await svc.get('/v1/portal/property?zpid=2146993218', key);
    expect(one.status).toBe(200);
    expect(one.headers.get('ratelimit-policy')).toBe(POLICY);
    expect(window(one.headers.get('ratelimit'))).toEqual({ r: 49, t: 50 });

    const batch = await svc.post('/v1/portal/batch', { items: zpids(49) }, key);
    expect(batch.status).toBe(200);
    expect(window(batch.headers.get('ratelimit'))).toEqual({ r: 0, t: 50 });

    const refused = await svc.get('/v1/portal/property?zpid=2146993218', key);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      code: 'rate_limited',
      details: { limit: 'lookups_per_minute', per_minute: 50, remaining: 0, requested: 1 },
    });
    expect(refused.headers.get('retry-after')).toBe('50');
    expect(window(refused.headers.get('ratelimit'))).toEqual({ r: 0, t: 50 });
    expect(refused.headers.get('ratelimit-policy')).toBe(POLICY);
    expect(typeof refused.body.meta.request_id).toBe('string');

    // A refused batch takes nothing and answers 429 as a whole; another key has its own window.
    const batchRefused = await svc.post('/v1/portal/batch', { items: zpids(2) }, key);
    expect(batchRefused.status).toBe(429);
    expect(batchRefused.body.error.details.requested).toBe(2);
    const otherKey = await svc.get('/v1/portal/property?zpid=2146993218', svc.keys.free!);
    expect(otherKey.status).toBe(200);
    expect(window(otherKey.headers.get('ratelimit'))).toEqual({ r: 49, t: 50 });
  });

  it('GraphQL counts lookups, not requests: each property field and each properties item takes one', async () => {
    const key = svc.keys.tiny!;
    const gql = (query: string) =>
      svc.fetch(`${svc.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ query }),
      });
    const two = await gql(
      '{ a: property(zpid: "2146993218") { __typename } b: property(zpid: "2146993218") { __typename } }',
    );
    expect(two.status).toBe(200);
    expect(window(two.headers.get('ratelimit'))).toEqual({ r: 48, t: 50 });
    const items = Array.from({ length: 48 }, () => '{ zpid: "2146993218" }').join(', ');
    const many = await gql(`{ properties(items: [${items}]) { meta { count } } }`);
    expect(window(many.headers.get('ratelimit'))).toEqual({ r: 0, t: 50 });
    const refused = await gql(
      '{ property(zpid: "2146993218") { __typename ... on LookupError { code retryAfter details } } }',
    );
    expect(refused.status).toBe(200);
    const body = (await refused.json()) as {
      data: { property: { __typename: string; code: string; retryAfter: number; details: Record<string, unknown> } };
    };
    expect(body.data.property).toMatchObject({
      __typename: 'LookupError',
      code: 'rate_limited',
      retryAfter: 50,
      details: { limit: 'lookups_per_minute' },
    });
    // An introspection-only request has no key and takes nothing.
    const intro = await svc.fetch(`${svc.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(intro.status).toBe(200);
    expect(intro.headers.get('ratelimit')).toBeNull();
  });
});

describe('a GraphQL operation takes its lookups all or none', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ env: { RATE_LIMIT_PER_MINUTE: '50' }, clock: fixedClock });
  });
  afterAll(() => svc.close());

  const gql = (key: string, query: string) =>
    svc.fetch(`${svc.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ query }),
    });
  type Field = { __typename: string; code?: string; details?: Record<string, unknown> };

  it('two property fields with one unit left: both refused, nothing taken; one field then fits', async () => {
    const key = svc.keys.paid!;
    const used = await svc.post('/v1/portal/batch', { items: zpids(49) }, key);
    expect(window(used.headers.get('ratelimit'))).toEqual({ r: 1, t: 50 });
    const two = await gql(
      key,
      '{ a: property(zpid: "2146993218") { __typename ... on LookupError { code details } } b: property(zpid: "114303858") { __typename ... on LookupError { code details } } }',
    );
    const body = (await two.json()) as { data: { a: Field; b: Field } };
    expect([body.data.a.code, body.data.b.code]).toEqual(['rate_limited', 'rate_limited']);
    expect(body.data.a.details).toMatchObject({ limit: 'lookups_per_minute', requested: 2, remaining: 1 });
    expect(window(two.headers.get('ratelimit'))).toEqual({ r: 1, t: 50 });
    const one = await gql(key, '{ property(zpid: "2146993218") { __typename } }');
    expect(((await one.json()) as { data: { property: Field } }).data.property.__typename).toBe('PropertyLookup');
    expect(window(one.headers.get('ratelimit'))).toEqual({ r: 0, t: 50 });
  });

  it('in a batched request each operation is admitted on its own', async () => {
    const key = svc.keys.tiny!;
    const used = await svc.post('/v1/portal/batch', { items: zpids(48) }, key);
    expect(window(used.headers.get('ratelimit'))).toEqual({ r: 2, t: 50 });
    const field = (alias: string) =>
      `${alias}: property(zpid: "2146993218") { __typename ... on LookupError { code } }`;
    const r = await svc.fetch(`${svc.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify([
        { query: `{ ${field('a')} }` },
        { query: `{ ${field('b')} ${field('c')} }` },
        { query: `{ ${field('d')} }` },
      ]),
    });
    const ops = (await r.json()) as Array<{ data: Record<string, Field> }>;
    expect(ops.map((op) => Object.values(op.data).map((f) => f.code ?? f.__typename))).toEqual([
      ['PropertyLookup'],
      ['rate_limited', 'rate_limited'],
      ['PropertyLookup'],
    ]);
    expect(window(r.headers.get('ratelimit'))).toEqual({ r: 0, t: 50 });
  });

  it('property fields and properties items together: refused as one, as a REST batch of as many is', async () => {
    const key = svc.keys.free!;
    const used = await svc.post('/v1/portal/batch', { items: zpids(48) }, key);
    expect(window(used.headers.get('ratelimit'))).toEqual({ r: 2, t: 50 });
    const mixed = await gql(
      key,
      '{ a: property(zpid: "2146993218") { __typename ... on LookupError { code } } p: properties(items: [{ zpid: "2146993218" }, { zpid: "114303858" }]) { results { ok error { code } } } }',
    );
    const body = (await mixed.json()) as {
      data: { a: Field; p: { results: Array<{ ok: boolean; error?: { code: string } }> } };
    };
    expect(body.data.a.code).toBe('rate_limited');
    expect(body.data.p.results.map((r) => r.error?.code ?? 'ok')).toEqual(['rate_limited', 'rate_limited']);
    const rest = await svc.post('/v1/portal/batch', { items: zpids(3) }, key);
    expect(rest.status).toBe(429);
    expect(rest.body.error.details).toMatchObject({ requested: 3, remaining: 2 });
    // Nothing was taken by either refusal: two lookups still fit.
    const fits = await svc.post('/v1/portal/batch', { items: zpids(2) }, key);
    expect(fits.status).toBe(200);
    expect(window(fits.headers.get('ratelimit'))).toEqual({ r: 0, t: 50 });
  });
});

describe('live lookups at once, held at a gate', () => {
  let replay: ReplayServer;
  let svc: TestService;
  let proxy: Awaited<ReturnType<typeof startGatedProxy>>;
  beforeAll(async () => {
    replay = await startReplayServer({ host: '127.0.0.1', port: 0 });
    proxy = await startGatedProxy(replay.origin);
    svc = await startTestService({ replayServer: replay, env: { PORTAL_ORIGIN: proxy.origin, MAX_LIVE_PER_KEY: '2' } });
  });
  afterAll(async () => {
    proxy.open();
    await svc.close();
    await proxy.close();
    await replay.close();
  });

  it('one live lookup past MAX_LIVE_PER_KEY is refused (429), another key is not; the slots come back', async () => {
    const key = svc.keys.free!;
    const first = svc.get('/v1/portal/property?zpid=2146993218', key);
    const second = svc.get('/v1/portal/property?zpid=114303858', key);
    await proxy.arrived(2);
    const accountId = (await authenticate(svc.store, svc.config.apiKeySecret, key)).id;
    const before = (await svc.app.core.limits.take(accountId, 0)).window!;
    const third = await svc.get('/v1/portal/property?zpid=15192198', key);
    expect(third.status).toBe(429);
    expect(third.body.error).toMatchObject({ code: 'rate_limited', details: { limit: 'live_lookups', max_live: 2 } });
    expect(third.headers.get('retry-after')).toBe('1');
    // The refusal took no unit of the key's window (unless a new window began meanwhile: then it is whole).
    const after = (await svc.app.core.limits.take(accountId, 0)).window!;
    expect(after.remaining).toBe(after.resetSeconds > before.resetSeconds ? after.limit : before.remaining);
    // Another key's live lookup is admitted: it reaches the (gated) site.
    const otherKey = svc.get('/v1/portal/property?zpid=15192198', svc.keys.paid!);
    await proxy.arrived(3);
    proxy.open();
    expect((await Promise.all([first, second, otherKey])).map((r) => r.status)).toEqual([200, 200, 200]);
    // Nothing of the refusal was billed; with the slots back, the key reads live again.
    const again = await svc.get('/v1/portal/property?zpid=15192198', key);
    expect(again.status).toBe(200);
    const account = await svc.get('/v1/account', key);
    expect(account.body.data.used).toBe(2);
  });
});

/** The memory limiter, counting the slots held at once (all accounts): the cap is never passed. */
class CountingLimiter extends MemoryRateLimiter {
  held = 0;
  most = 0;
  private readonly emptied: Array<() => void> = [];

  override async holdLive(accountId: string, wait?: AbortSignal): Promise<(() => void) | null> {
    const release = await super.holdLive(accountId, wait);
    if (!release) return null;
    this.held += 1;
    this.most = Math.max(this.most, this.held);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.held -= 1;
      release();
      if (this.held === 0) this.emptied.splice(0).forEach((wake) => wake());
    };
  }

  /** Resolves once no slot is held. */
  idle(): Promise<void> {
    return this.held === 0 ? Promise.resolve() : new Promise((wake) => this.emptied.push(wake));
  }
}

describe('live slots of a key shared by its requests, held at a gate', () => {
  let replay: ReplayServer;
  let proxy: Awaited<ReturnType<typeof startGatedProxy>>;
  let svc: TestService;
  const limits = new CountingLimiter({ perMinute: 0, maxLive: 2 });
  beforeAll(async () => {
    replay = await startReplayServer({ host: '127.0.0.1', port: 0 });
    proxy = await startGatedProxy(replay.origin, { open: true });
    svc = await startTestService({
      socket: 'client-abort',
      replayServer: replay,
      limits,
      env: { PORTAL_ORIGIN: proxy.origin, MAX_LIVE_PER_KEY: '2', BATCH_CONCURRENCY: '10' },
    });
  });
  afterAll(async () => {
    await svc.close();
    await proxy.close();
    await replay.close();
  });

  it("a batch beside the key's single lookup waits for a slot instead of refusing its items; the cap holds", async () => {
    const key = svc.keys.paid!;
    const letGo = proxy.hold('2146993218_zpid');
    const single = svc.get('/v1/portal/property?zpid=2146993218', key);
    try {
      await proxy.received('2146993218_zpid');
      const batch = await svc.post(
        '/v1/portal/batch',
        { items: [{ zpid: '114303858' }, { zpid: '15192198' }, { zpid: '999000101' }] },
        key,
      );
      expect(batch.status).toBe(200);
      expect(batch.body.data.map((d: { ok: boolean; error?: { code: string } }) => d.error?.code ?? 'ok')).toEqual([
        'ok',
        'ok',
        'ok',
      ]);
      expect(batch.body.meta).toMatchObject({ succeeded: 3, credits: 3 });
    } finally {
      letGo();
    }
    expect((await single).status).toBe(200);
    expect(limits.most).toBe(2);
    await limits.idle();
  });

  it('a slot comes back after a live lookup that failed upstream', async () => {
    const key = svc.keys.free!;
    replay.faults.set('/homedetails/999000102_zpid/', { status: 500, body: 'upstream broke' });
    const fails = await svc.get('/v1/portal/property?zpid=999000102', key);
    replay.faults.delete('/homedetails/999000102_zpid/');
    expect(fails.status).toBeGreaterThanOrEqual(500);
    expect(fails.body.error.code).not.toBe('rate_limited');
    // Released before the answer left: none held, and the key reads live again.
    expect(limits.held).toBe(0);
    const again = await svc.get('/v1/portal/property?zpid=999000102', key);
    expect(again.body.meta?.cached).toBe(false);
    expect(limits.held).toBe(0);
  });

  it('a slot comes back after the client gave up on its live lookup', async () => {
    const key = svc.keys.tiny!;
    const letGo = proxy.hold('999000104_zpid');
    const client = new AbortController();
    const gone = fetch(`${svc.url}/v1/portal/property?zpid=999000104`, {
      headers: { 'x-api-key': key },
      signal: client.signal,
    }).catch((e: unknown) => e);
    await proxy.received('999000104_zpid');
    expect(limits.held).toBe(1);
    client.abort();
    await gone;
    // The service hangs up on the site once its client is gone, and gives the slot back.
    await proxy.abandoned('999000104_zpid');
    await limits.idle();
    letGo();
    expect(limits.held).toBe(0);
  });
});

describe('a batch and its own live cap', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ env: { MAX_LIVE_PER_KEY: '2', BATCH_CONCURRENCY: '10' } });
  });
  afterAll(() => svc.close());

  it('never trips it: the batch runs at most MAX_LIVE_PER_KEY live lookups at once, the others wait their turn', async () => {
    const r = await svc.post('/v1/portal/batch', {
      items: [{ zpid: '2146993218' }, { zpid: '114303858' }, { zpid: '15192198' }],
    });
    expect(r.status).toBe(200);
    expect(r.body.data.map((d: { ok: boolean }) => d.ok)).toEqual([true, true, true]);
    expect(r.body.meta).toMatchObject({ succeeded: 3, credits: 3 });
  });
});

describe('on one Redis, two instances share the limits', () => {
  let redis: RedisServer;
  let replay: ReplayServer;
  const services: TestService[] = [];
  beforeAll(async () => {
    redis = await startRedisServer();
    replay = await startReplayServer({ host: '127.0.0.1', port: 0 });
    for (let i = 0; i < 2; i++) {
      const store = await RedisStore.connect(redis.url, { prefix: 'rl-test:' });
      services.push(
        await startTestService({
          store,
          replayServer: replay,
          env: { REDIS_URL: redis.url, REDIS_PREFIX: 'rl-test:', RATE_LIMIT_PER_MINUTE: '50' },
        }),
      );
    }
  });
  afterAll(async () => {
    for (const s of services) {
      await s.close();
      await s.store.close();
    }
    await replay.close();
    await disposeRedisServer(redis);
  });

  it('a window used up on one instance refuses on the other', async () => {
    const [a, b] = services as [TestService, TestService];
    // Redis keeps the window on its own clock: if it ends between the two requests, try once more in the next.
    for (const key of [a.keys.paid!, a.keys.free!]) {
      const used = await a.post('/v1/portal/batch', { items: zpids(50) }, key);
      expect(used.status).toBe(200);
      const w = window(used.headers.get('ratelimit'));
      expect(w.r).toBe(0);
      const refused = await b.get('/v1/portal/property?zpid=2146993218', key);
      if (refused.status === 200 && window(refused.headers.get('ratelimit')).r === 49 && w.t <= 1) continue;
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(window(refused.headers.get('ratelimit')).r).toBe(0);
      return;
    }
    throw new Error('the window rolled over twice during the test');
  });

  /** Counts the live-slot holds `limiter` was refused on Redis (a waiter's tries): a gate for the test. */
  const countingRefusals = (limiter: RedisRateLimiter) => {
    type Hold = (...args: unknown[]) => Promise<number>;
    const scripts = (limiter as unknown as { scripts: { plLiveHold: Hold } }).scripts;
    const hold = scripts.plLiveHold.bind(scripts);
    const counted = { count: 0, waiters: [] as Array<{ n: number; wake: () => void }> };
    scripts.plLiveHold = async (...args) => {
      const got = await hold(...args);
      if (got === 0) counted.count += 1;
      for (const w of counted.waiters.filter((x) => x.n <= counted.count)) w.wake();
      return got;
    };
    return {
      get count() {
        return counted.count;
      },
      refused: (n: number): Promise<void> =>
        counted.count >= n ? Promise.resolve() : new Promise((wake) => counted.waiters.push({ n, wake })),
    };
  };

  const limiterOn = (leaseTtlMs: number, maxLive: number, lines: unknown[] = []) =>
    new RedisRateLimiter(
      { perMinute: 50, maxLive },
      {
        url: redis.url,
        prefix: 'rl-unit:',
        commandTimeoutMs: 1000,
        leaseTtlMs,
        logger: pino({ level: 'warn' }, { write: (l: string) => void lines.push(JSON.parse(l)) }),
      },
    );

  it('a request arriving while the connection is still being made waits for it: counted, no warning', async () => {
    const lines: unknown[] = [];
    const limiter = limiterOn(900, 1, lines);
    try {
      const first = await limiter.take('early', 1);
      expect(first).toEqual({ allowed: true, window: expect.objectContaining({ limit: 50, remaining: 49 }) });
      expect(lines).toEqual([]);
    } finally {
      await limiter.close();
    }
  });

  it('gives units back to the current window, and keeps the background slots apart, on Redis', async () => {
    const limiter = limiterOn(3000, 1);
    try {
      for (let attempt = 0; ; attempt += 1) {
        const first = await limiter.take(`give${attempt}`, 50);
        await limiter.give(`give${attempt}`, 2);
        const refused = await limiter.take(`give${attempt}`, 3);
        const taken = await limiter.take(`give${attempt}`, 2);
        // Each take in the same window as the first (else the window rolled over: try again).
        if (
          refused.window!.resetSeconds > first.window!.resetSeconds ||
          taken.window!.resetSeconds > first.window!.resetSeconds
        ) {
          if (attempt < 3) continue;
          throw new Error('the window rolled over on every attempt');
        }
        expect(refused).toMatchObject({ allowed: false, window: { remaining: 2 } });
        expect(taken).toMatchObject({ allowed: true, window: { remaining: 0 } });
        break;
      }
      const mine = await limiter.holdLive('pools');
      expect(await limiter.holdLive('pools')).toBeNull();
      const bg = await limiter.holdLive('pools', undefined, 'background');
      expect(typeof bg).toBe('function');
      expect(await limiter.holdLive('pools', undefined, 'background')).toBeNull();
      mine!();
      bg!();
    } finally {
      await limiter.close();
    }
  });

  it('a slot that lapsed during a stall is added back by the next renewal; its release removes it', async () => {
    // Renewed every second; the slot never lapses on its own here (the test deletes it), so its release is
    // what empties the set: zrem, not expired.
    const limiter = limiterOn(3000, 2);
    const client = new Redis(redis.url);
    const key = 'rl-unit:rl:{stalled}:live';
    const slots = await watchKeys(redis.url, key);
    const since = (n: number) => slots.of(key).slice(n);
    try {
      const release = await limiter.holdLive('stalled');
      expect(typeof release).toBe('function');
      expect(await client.zcard(key)).toBe(1);
      // As if the renewals had not reached Redis for longer than the ttl.
      await client.del(key);
      await slots.until(() => slots.of(key).includes('del'));
      const deleted = slots.of(key).length;
      // The next renewal adds it back.
      await slots.until(() => since(deleted).includes('zadd'));
      expect(await client.zcard(key)).toBe(1);
      const renewed = slots.of(key).length;
      release!();
      await slots.until(() => since(renewed).includes('zrem'));
      expect(await client.zcard(key)).toBe(0);
      expect(slots.of(key)).not.toContain('expired');
    } finally {
      await slots.close();
      client.disconnect();
      await limiter.close();
    }
  });

  it('a waiter gets the slot another instance releases, and gives up when its signal aborts', async () => {
    // Slots that must stay held while the other instance is refused: a long lease (nothing waits for one to
    // lapse), which a stalled event loop (a loaded machine) does not lapse and hand to the other instance.
    const [one, two] = [limiterOn(60_000, 1), limiterOn(60_000, 1)];
    const refusals = countingRefusals(two);
    try {
      const held = await one.holdLive('shared');
      expect(typeof held).toBe('function');
      expect(await two.holdLive('shared')).toBeNull();
      const giveUp = new AbortController();
      const refused = two.holdLive('shared', giveUp.signal);
      giveUp.abort();
      expect(await refused).toBeNull();
      // The waiter is refused on Redis at least once (it waits) before the slot is released.
      const before = refusals.count;
      const waiting = two.holdLive('shared', new AbortController().signal);
      await refusals.refused(before + 1);
      held!();
      const got = await waiting;
      expect(typeof got).toBe('function');
      expect(await one.holdLive('shared')).toBeNull();
      got!();
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('a live slot held on one instance counts on the other', async () => {
    const [a, b] = services as [TestService, TestService];
    const proxy = await startGatedProxy(replay.origin);
    const gatedA = await startTestService({
      store: a.store,
      replayServer: replay,
      env: { PORTAL_ORIGIN: proxy.origin, REDIS_URL: redis.url, REDIS_PREFIX: 'rl-test:', MAX_LIVE_PER_KEY: '1' },
    });
    const gatedB = await startTestService({
      store: b.store,
      replayServer: replay,
      env: { REDIS_URL: redis.url, REDIS_PREFIX: 'rl-test:', MAX_LIVE_PER_KEY: '1' },
    });
    try {
      const key = a.keys.tiny!;
      const held = gatedA.get('/v1/portal/property?zpid=114303858', key);
      await proxy.arrived(1);
      const refused = await gatedB.get('/v1/portal/property?zpid=15192198', key);
      expect(refused.status).toBe(429);
      expect(refused.body.error.details).toMatchObject({ limit: 'live_lookups', max_live: 1 });
      const client = new Redis(redis.url);
      const slots = `rl-test:rl:{${seededAccountId(hashApiKey(key, gatedA.config.apiKeySecret))}}:live`;
      const events = await watchKeys(redis.url, slots);
      try {
        expect(await client.zcard(slots)).toBe(1);
        proxy.open();
        expect((await held).status).toBe(200);
        // The release reaches Redis (after the answer: it is not waited for), as a zrem: the slot's lease
        // (LEASE_TTL_MS, 5 s) has not lapsed.
        await events.until(() => events.of(slots).includes('zrem'));
        expect(await client.zcard(slots)).toBe(0);
        expect(events.of(slots)).not.toContain('expired');
      } finally {
        await events.close();
        client.disconnect();
      }
    } finally {
      proxy.open();
      await gatedA.close();
      await gatedB.close();
      await proxy.close();
    }
  });
});
