// Freshness control, stale-if-blocked and change hints (issue 10 §1, §2, §4), end to end through the
// service's routes: a service on the replay site, whose page for one home the test edits (a new price) and then
// turns into the bot wall, with the memory store and with a real Redis. The service clock (and the
// memory store's) is the test's: entries are made old by moving it, never by waiting.
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReplayServer } from '../../src/replay/server.js';
import { MemoryStore, type Store } from '../../src/store/index.js';
import { RedisStore } from '../../src/store/redis.js';
import { postGql } from '../graphql/client.js';
import { startGatedProxy, type GatedProxy } from '../helpers/gated-proxy.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { recordedPage } from '../helpers/replay.js';
import { startTestService, type ReplayServer, type TestService } from '../helpers/service.js';

const WALL = readFileSync(
  new URL('../../fixtures/portal/blocked-press-and-hold-2025-04.html', import.meta.url),
  'utf8',
);
const ZPID = '15192198';
const KEY = `zpid:${ZPID}`;
const PAGE = recordedPage(ZPID);
const PRICE = 850_000;
const NEW_PRICE = 799_000;
// The home's own price in the page's data (the other prices on the page are nearby homes').
const OWN_PRICE = `\\"bathrooms\\":1,\\"price\\":${PRICE},`;
const withPrice = (price: number): string => {
  if (!PAGE.html.includes(OWN_PRICE))
    throw new Error('the recorded page no longer holds the price where this test edits it');
  return PAGE.html.replace(OWN_PRICE, `\\"bathrooms\\":1,\\"price\\":${price},`);
};
const HOUR = 3600_000;

let replay: ReplayServer;
let redis: RedisServer | undefined;
beforeAll(async () => {
  replay = await startReplayServer({ host: '127.0.0.1', port: 0 });
  redis = await startRedisServer();
});
afterAll(async () => {
  await replay?.close();
  await disposeRedisServer(redis);
});

describe.each(['memory', 'redis'] as const)('with the %s store', (kind) => {
  let svc: TestService;
  let store: Store | undefined;
  let now = Date.parse('2026-06-01T12:00:00.000Z');
  const elapse = (ms: number) => {
    now += ms;
  };
  beforeAll(async () => {
    if (kind === 'redis') store = await RedisStore.connect(redis!.url, { prefix: `f${randomUUID().slice(0, 8)}:` });
    svc = await startTestService({ replayServer: replay, clock: () => new Date(now), ...(store ? { store } : {}) });
    replay.faults.clear();
  });
  afterAll(async () => {
    replay.faults.clear();
    await svc?.close();
    await store?.close();
  });

  // The page itself (the short link asked first is only the site's redirect to it).
  const reads = () => replay.requests.filter((r) => r.path === PAGE.path).length;
  const charges = async () => (await svc.store.ledger()).length;
  const lookup = (query = '') => svc.get(`/v1/portal/property?zpid=${ZPID}${query}`);
  const gqlProperty = async (args: string) => {
    const r = await postGql(svc, {
      query: `{ property(zpid: "${ZPID}"${args}) { __typename ... on PropertyLookup { data { price } meta { credits cached ageSeconds stale staleReason fetchedAt previousFetchedAt changes { field from to } } } ... on LookupError { code } } }`,
    });
    expect(r.status).toBe(200);
    return r.body.data.property;
  };

  it('a first read: live, billed, age 0, no earlier snapshot (no changes)', async () => {
    const r = await lookup();
    expect(r.status).toBe(200);
    expect(r.headers.get('x-cache')).toBe('MISS');
    expect(r.body.data.price).toBe(PRICE);
    expect(r.body.meta).toMatchObject({ credits: 1, cached: false, age_seconds: 0 });
    expect(r.body.meta).not.toHaveProperty('changes');
    expect(r.body.meta).not.toHaveProperty('stale');
    expect(await charges()).toBe(1);
  });

  it('a hit tells its age; max_age older than the hit reads live again, billed, with what changed', async () => {
    elapse(600_000);
    const hit = await lookup();
    expect(hit.headers.get('x-cache')).toBe('HIT');
    expect(hit.body.meta).toMatchObject({ credits: 0, cached: true, age_seconds: 600 });
    const first = hit.body.meta.fetched_at as string;

    // The site now shows a lower price.
    replay.faults.set(PAGE.path, { body: withPrice(NEW_PRICE) });
    const stillFresh = await lookup('&max_age=900');
    expect(stillFresh.body.meta).toMatchObject({ credits: 0, cached: true, age_seconds: 600 });
    expect(stillFresh.body.data.price).toBe(PRICE);

    const readsBefore = reads();
    const r = await lookup('&max_age=300');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-cache')).toBe('MISS');
    expect(r.body.data.price).toBe(NEW_PRICE);
    expect(r.body.meta).toMatchObject({ credits: 1, cached: false, age_seconds: 0, previous_fetched_at: first });
    expect(r.body.meta.changes).toEqual([{ field: 'price', from: PRICE, to: NEW_PRICE }]);
    expect(reads() - readsBefore).toBe(1);
    expect(await charges()).toBe(2);

    // A hit of that snapshot carries the changes it brought.
    const after = await lookup();
    expect(after.body.meta).toMatchObject({
      credits: 0,
      cached: true,
      changes: [{ field: 'price', from: PRICE, to: NEW_PRICE }],
    });
  });

  it('max_age=0 forces a live read; two of them for one home in one batch: one read, one charge; nothing changed → []', async () => {
    elapse(1_000);
    const readsBefore = reads();
    const r = await svc.post('/v1/portal/batch', {
      items: [{ zpid: ZPID, max_age: 0 }, { zpid: ZPID, max_age: 0 }, { zpid: ZPID }],
      max_age: 86_400,
    });
    expect(r.status).toBe(200);
    const [a, b, c] = r.body.data;
    expect(reads() - readsBefore).toBe(1);
    expect([a.meta.credits, b.meta.credits]).toEqual([1, 0]);
    expect(a.meta).toMatchObject({ cached: false, age_seconds: 0, changes: [] });
    expect(b.meta).toMatchObject({ cached: true, changes: [] });
    // The third item takes the batch's max_age: the cached snapshot as it was before this batch read.
    expect(c.meta).toMatchObject({ credits: 0, cached: true });
    expect(r.body.meta.credits).toBe(1);
    expect(await charges()).toBe(3);
  });

  it('GraphQL: maxAge per item and per lookup, the same meta in camelCase', async () => {
    elapse(120_000);
    const readsBefore = reads();
    const fresh = await gqlProperty(', maxAge: 3600');
    expect(fresh.meta).toMatchObject({ credits: 0, cached: true, ageSeconds: 120, stale: null, changes: [] });
    const batch = await postGql(svc, {
      query: `query($items: [LookupItem!]!) { properties(items: $items) { results { ok meta { credits cached ageSeconds changes { field } } } meta { credits } } }`,
      variables: { items: [{ zpid: ZPID, maxAge: 60 }] },
    });
    expect(batch.body.data.properties.results[0]).toMatchObject({
      ok: true,
      meta: { credits: 1, cached: false, ageSeconds: 0, changes: [] },
    });
    expect(reads() - readsBefore).toBe(1);
    expect(await charges()).toBe(4);
  });

  it('blocked, past the cache lifetime: the last good record, stale, free, x-cache STALE; nothing billed or cached', async () => {
    replay.faults.set(PAGE.path, { status: 403, body: WALL });
    elapse(25 * HOUR);
    const before = (await svc.store.getEntries([KEY]))[0];
    const r = await lookup();
    expect(r.status).toBe(200);
    expect(r.headers.get('x-cache')).toBe('STALE');
    expect(r.body.data.price).toBe(NEW_PRICE);
    expect(r.body.meta).toMatchObject({
      credits: 0,
      cached: true,
      stale: true,
      stale_reason: 'upstream_blocked',
      age_seconds: 25 * 3600,
    });
    expect(await charges()).toBe(4);
    expect((await svc.store.getEntries([KEY]))[0]).toEqual(before);
    expect((await svc.get('/v1/account')).body.data.used).toBe(4);
  });

  it('stale=false: the upstream error as before (REST 502, GraphQL LookupError), not billed', async () => {
    const r = await lookup('&stale=false');
    expect(r.status).toBe(502);
    expect(r.body.error.code).toBe('upstream_blocked');
    expect(await gqlProperty(', stale: false')).toEqual({ __typename: 'LookupError', code: 'upstream_blocked' });
    expect(await charges()).toBe(4);
  });

  it('GraphQL and batch items: the stale answer with staleReason', async () => {
    const p = await gqlProperty('');
    expect(p).toMatchObject({
      __typename: 'PropertyLookup',
      data: { price: NEW_PRICE },
      meta: { credits: 0, cached: true, stale: true, staleReason: 'upstream_blocked', ageSeconds: 25 * 3600 + 0 },
    });
    const b = await svc.post('/v1/portal/batch', { items: [{ zpid: ZPID }] });
    expect(b.body.data[0].meta).toMatchObject({ stale: true, stale_reason: 'upstream_blocked', credits: 0 });
    expect(b.body.meta.credits).toBe(0);
    expect(await charges()).toBe(4);
  });

  it('unblocked: the next read replaces the snapshot the stale answers stood on, with what changed since', async () => {
    const earlier = (await svc.store.getEntries([KEY]))[0]!;
    replay.faults.clear();
    const r = await lookup();
    expect(r.body.data.price).toBe(PRICE);
    expect(r.body.meta).toMatchObject({ credits: 1, cached: false, previous_fetched_at: earlier.fetchedAt });
    expect(r.body.meta.changes).toEqual([{ field: 'price', from: NEW_PRICE, to: PRICE }]);
    expect(r.body.meta).not.toHaveProperty('stale');
    expect(await charges()).toBe(5);
  });

  it('an address whose resolution is blocked: the home its alias last led to answers, stale', async () => {
    const address = `/v1/portal/property?address=${encodeURIComponent('661 Lakeview Ave, San Francisco, CA 94112')}`;
    const known = await svc.get(address);
    expect(known.body.meta).toMatchObject({ credits: 0, cached: true });
    elapse(25 * HOUR);
    replay.faults.set(new URL(replay.suggestUrl).pathname, { status: 403, body: WALL });
    replay.faults.set(PAGE.path, { status: 403, body: WALL });
    const readsBefore = reads();
    const r = await svc.get(address);
    // The resolution itself failed: the page was never asked for.
    expect(reads()).toBe(readsBefore);
    expect(r.status).toBe(200);
    expect(r.headers.get('x-cache')).toBe('STALE');
    expect(r.body.data.zpid).toBe(ZPID);
    expect(r.body.meta).toMatchObject({
      credits: 0,
      cached: true,
      stale: true,
      stale_reason: 'upstream_blocked',
      cache_key: known.body.meta.cache_key,
    });
    expect(await charges()).toBe(5);
    replay.faults.clear();
  });

  it('past STALE_TTL_MS the record no longer stands in: the error', async () => {
    replay.faults.set(PAGE.path, { status: 403, body: WALL });
    elapse(24 * HOUR + svc.config.staleTtlMs);
    const r = await lookup();
    expect(r.status).toBe(502);
    expect(r.body.error.code).toBe('upstream_blocked');
    replay.faults.clear();
  });
});

describe('max_age and stale are validated', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ replayServer: replay });
  });
  afterAll(() => svc?.close());

  it.each(['-1', '86401', '1.5', 'abc', '', '1e5'])('GET max_age=%j → 400 bad_param', async (value) => {
    const r = await svc.get(`/v1/portal/property?zpid=${ZPID}&max_age=${value}`);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'bad_param', details: { param: 'max_age' } });
    expect(r.body.error.message).toMatch(/max_age.*0 to 86400/);
  });

  it('GET stale=maybe → 400 bad_param', async () => {
    const r = await svc.get(`/v1/portal/property?zpid=${ZPID}&stale=maybe`);
    expect(r.body.error).toMatchObject({ code: 'bad_param', details: { param: 'stale' } });
  });

  it('batch: a bad top-level max_age refuses the batch; a bad item max_age fails that item alone', async () => {
    const top = await svc.post('/v1/portal/batch', { items: [{ zpid: ZPID }], max_age: 'soon' });
    expect(top.status).toBe(400);
    expect(top.body.error).toMatchObject({ code: 'bad_param', details: { param: 'max_age' } });
    const item = await svc.post('/v1/portal/batch', {
      items: [
        { zpid: ZPID, max_age: 90_000 },
        { zpid: '1', max_age: 0, raw: true },
      ],
    });
    expect(item.status).toBe(200);
    expect(item.body.data[0]).toMatchObject({ ok: false, error: { code: 'bad_param', details: { param: 'max_age' } } });
    expect(item.body.data[1]).toMatchObject({ ok: false, error: { code: 'bad_param', details: { param: 'item' } } });
  });

  it('GraphQL: maxAge out of range → LookupError bad_param; an item with two locators fails in place', async () => {
    const r = await postGql(svc, {
      query: `{ property(zpid: "${ZPID}", maxAge: 90000) { ... on LookupError { code details } } }`,
    });
    expect(r.body.data.property).toMatchObject({ code: 'bad_param', details: { param: 'max_age' } });
    const b = await postGql(svc, {
      query: `{ properties(items: [{ zpid: "1", url: "https://www.zillow.com/homedetails/1_zpid/" }, { zpid: "${ZPID}", maxAge: -1 }]) { results { ok error { code details } } } }`,
    });
    expect(b.body.data.properties.results).toEqual([
      { ok: false, error: { code: 'bad_param', details: { param: 'url,zpid', reason: 'more than one locator' } } },
      {
        ok: false,
        error: { code: 'bad_param', details: { param: 'max_age', reason: expect.stringMatching(/0 to 86400/) } },
      },
    ]);
  });
});

/** A memory store that tells when the home's entry has been read n times (each lookup's cache read, the lock's re-check). */
class WatchedStore extends MemoryStore {
  private reads = 0;
  private readonly waiters: Array<{ n: number; wake: () => void }> = [];

  override async getEntries(keys: readonly string[]) {
    const found = await super.getEntries(keys);
    if (keys.includes(KEY)) this.reads += 1;
    for (const w of this.waiters.filter((x) => x.n <= this.reads)) w.wake();
    return found;
  }

  readsOfHome(n: number): Promise<void> {
    return n <= this.reads ? Promise.resolve() : new Promise((wake) => this.waiters.push({ n, wake }));
  }
}

describe('max_age and one flight: a read that began before the lookup is not fresh enough for max_age=0', () => {
  let svc: TestService;
  let proxy: GatedProxy;
  let now = Date.parse('2026-06-01T12:00:00.000Z');
  const store = new WatchedStore(() => now);
  beforeAll(async () => {
    proxy = await startGatedProxy(replay.origin, { open: true });
    svc = await startTestService({
      replayServer: replay,
      store,
      clock: () => new Date(now),
      env: { PORTAL_ORIGIN: proxy.origin },
    });
  });
  afterAll(async () => {
    proxy.open();
    await svc?.close();
    await proxy?.close();
  });

  it("A reads (held); B (max_age=0, begun later) reads again; D (no max_age, begun later) takes A's read: 2 reads, 2 charges", async () => {
    const pageReads = () => proxy.paths.filter((p) => p === PAGE.path).length;
    const release = proxy.hold(PAGE.path);
    const a = svc.get(`/v1/portal/property?zpid=${ZPID}`);
    await proxy.received(PAGE.path);
    now += 1_000;
    const b = svc.get(`/v1/portal/property?zpid=${ZPID}&max_age=0`);
    const d = svc.get(`/v1/portal/property?zpid=${ZPID}`);
    // B and D have found nothing cached (A's cache read and its re-check under the lock, then theirs);
    // from there to joining A's flight is in-process work only, done before the next turn of the loop.
    await store.readsOfHome(4);
    await new Promise((resolve) => setImmediate(resolve));
    release();
    const [ra, rb, rd] = await Promise.all([a, b, d]);
    expect(ra.body.meta).toMatchObject({ credits: 1, cached: false });
    expect(rb.body.meta).toMatchObject({ credits: 1, cached: false, age_seconds: 0, changes: [] });
    expect(rd.body.meta).toMatchObject({ credits: 0, cached: true });
    expect(pageReads()).toBe(2);
    expect(await svc.store.ledger()).toHaveLength(2);
  });
});
