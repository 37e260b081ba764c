// Cost preview (issue 10 §5): POST /v1/portal/batch?dry_run=true and GraphQL properties(dryRun: true),
// through the service's routes, on the memory store and on a real redis-server. Exact would_cost per item (a
// cached zpid, an address looked up before, an uncached home, an invalid item, duplicates, an address
// known to be ambiguous), meta.credits_estimate and meta.affordable; no upstream call, no charge, no
// hold; one unit of the rate window per preview; both faces answer the same; and the real batch of
// the same items then charges exactly what the preview said.
import { randomUUID } from 'node:crypto';
import { print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchPreviewResponse } from '../../src/contract/index.js';
import {
  BatchPreviewDocument,
  type BatchPreviewQuery,
  type LookupItem,
} from '../../src/graphql/operations/generated/graphql.js';
import { MemoryStore, type Store } from '../../src/store/index.js';
import { RedisStore } from '../../src/store/redis.js';
import { postGql } from '../graphql/client.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { expectSchema } from '../helpers/schema.js';
import { q, startTestService, type TestService } from '../helpers/service.js';

const CACHED_ZPID = '2146993218';
const CACHED_URL = `https://www.zillow.com/homedetails/6851-Roswell-Rd-APT-O31-Sandy-Springs-GA-30328/${CACHED_ZPID}_zpid/`;
const KNOWN_ADDRESS = '661 Lakeview Ave, San Francisco, CA 94112';
const UNCACHED_ZPID = '114303858';
/** A unit the building does not have: the site offers another home, so the address is refused 409 and remembered. */
const AMBIGUOUS = '2435 Aspen Rd Unit 999, Ames, IA 50010';
const ACCOUNTS = {
  free: { key: 'test_prev_free_0001', plan: 'free' as const, allotment: 50 },
  tiny: { key: 'test_prev_tiny_0001', plan: 'free' as const, allotment: 1 },
};

let redis: RedisServer;
const redisStores: RedisStore[] = [];
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await Promise.all(redisStores.map((s) => s.close()));
  await disposeRedisServer(redis);
});

const stores: Array<[string, () => Promise<Store>]> = [
  ['memory', async () => new MemoryStore()],
  [
    'redis',
    async () => {
      const s = await RedisStore.connect(redis.url, { prefix: `pv${randomUUID().slice(0, 6)}:` });
      redisStores.push(s);
      return s;
    },
  ],
];

type Graph = NonNullable<BatchPreviewQuery['properties']>;

/** A GraphQL preview in REST's names (results → data, camelCase → snake_case), took_ms left out. */
function asRest(g: Graph) {
  return {
    data: g.results.map((r) => ({
      index: r.index,
      ok: r.ok,
      would_cost: r.wouldCost,
      ...(r.cacheKey == null ? {} : { cache_key: r.cacheKey }),
      ...(r.error == null
        ? {}
        : {
            error: {
              code: r.error.code,
              message: r.error.message,
              ...(r.error.details == null ? {} : { details: r.error.details }),
            },
          }),
    })),
    meta: {
      count: g.meta.count,
      succeeded: g.meta.succeeded,
      failed: g.meta.failed,
      cache_hits: g.meta.cacheHits,
      credits: g.meta.credits,
      credits_estimate: g.meta.creditsEstimate,
      credits_available: g.meta.creditsAvailable,
      affordable: g.meta.affordable,
    },
  };
}

const withoutTook = ({ data, meta }: { data: unknown; meta: Record<string, unknown> }) => {
  const { took_ms: _t, ...rest } = meta;
  return { data, meta: rest };
};

/** A batch body in REST's names: an item's maxAge is max_age. */
const restBody = (items: LookupItem[], maxAge?: number) => ({
  items: items.map(({ maxAge: itemMaxAge, ...locator }) =>
    itemMaxAge == null ? locator : { ...locator, max_age: itemMaxAge },
  ),
  ...(maxAge === undefined ? {} : { max_age: maxAge }),
});

const rateLeft = (header: string | null): number => {
  const m = /^"default";r=(\d+);t=(\d+)$/.exec(header ?? '');
  if (!m) throw new Error(`not a RateLimit field: ${header}`);
  return Number(m[1]);
};

describe.each(stores)('cost preview on the %s store', (_kind, open) => {
  let svc: TestService;
  let knownKey: string;
  let ambiguousError: unknown;

  const account = async (key = ACCOUNTS.free.key) => (await svc.get('/v1/account', key)).body.data;
  const books = async () => ({
    requests: svc.replay.requests.length,
    ledger: await svc.store.ledger(),
    free: await account(),
    tiny: await account(ACCOUNTS.tiny.key),
  });

  /** The same preview through both faces (`max_age` is the batch's); they must agree. Returns REST's answer. */
  async function preview(items: LookupItem[], key = ACCOUNTS.free.key, maxAge?: number) {
    const rest = await svc.post('/v1/portal/batch?dry_run=true', restBody(items, maxAge), key);
    expect(rest.status, JSON.stringify(rest.body)).toBe(200);
    expectSchema(BatchPreviewResponse, rest.body);
    const graph = await postGql(
      svc,
      { query: print(BatchPreviewDocument), variables: { items, ...(maxAge === undefined ? {} : { maxAge }) } },
      { key },
    );
    expect(graph.status, JSON.stringify(graph.body)).toBe(200);
    expect(graph.body.errors).toBeUndefined();
    expect(asRest(graph.body.data.properties as Graph), 'GraphQL answers what REST does').toEqual(
      withoutTook(rest.body),
    );
    return rest;
  }

  beforeAll(async () => {
    // Windows far from full: the preview's own unit is what the tests read in the RateLimit header.
    svc = await startTestService({ store: await open(), accounts: ACCOUNTS, env: { RATE_LIMIT_PER_MINUTE: '1000' } });
    // Looked up before: a home by zpid, a home by address (its alias), an address that matched another home (its memo).
    expect((await svc.get(`/v1/portal/property?zpid=${CACHED_ZPID}`)).body.meta).toMatchObject({
      credits: 1,
      cached: false,
    });
    const known = await svc.get(`/v1/portal/property?${q({ address: KNOWN_ADDRESS })}`);
    expect(known.body.meta).toMatchObject({ credits: 1, cached: false });
    knownKey = known.body.meta.cache_key;
    const ambiguous = await svc.get(`/v1/portal/property?${q({ address: AMBIGUOUS })}`);
    expect(ambiguous.status).toBe(409);
    ambiguousError = ambiguous.body.error;
  });
  afterAll(() => svc?.close());

  const ITEMS: LookupItem[] = [
    { zpid: CACHED_ZPID },
    { address: KNOWN_ADDRESS },
    { zpid: UNCACHED_ZPID },
    { zpid: 'nope' },
    { url: CACHED_URL },
    { zpid: UNCACHED_ZPID },
    { address: AMBIGUOUS },
  ];

  it('prices each item: cached 0 (an address looked up before too), uncached 1, a duplicate 0, invalid and ambiguous 0 with their error', async () => {
    const before = await books();
    const r = await preview(ITEMS);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('x-cache')).toBeNull();
    expect(r.body.data).toEqual([
      { index: 0, ok: true, would_cost: 0, cache_key: `zpid:${CACHED_ZPID}` },
      { index: 1, ok: true, would_cost: 0, cache_key: knownKey },
      { index: 2, ok: true, would_cost: 1, cache_key: `zpid:${UNCACHED_ZPID}` },
      {
        index: 3,
        ok: false,
        would_cost: 0,
        error: {
          code: 'bad_param',
          message: 'Invalid zpid: must be 1 to 12 digits.',
          details: { param: 'zpid', reason: 'must be 1 to 12 digits' },
        },
      },
      { index: 4, ok: true, would_cost: 0, cache_key: `zpid:${CACHED_ZPID}` },
      { index: 5, ok: true, would_cost: 0, cache_key: `zpid:${UNCACHED_ZPID}` },
      { index: 6, ok: false, would_cost: 0, error: ambiguousError },
    ]);
    const { took_ms, ...meta } = r.body.meta;
    expect(Number.isInteger(took_ms)).toBe(true);
    expect(meta).toEqual({
      count: 7,
      succeeded: 5,
      failed: 2,
      cache_hits: 4,
      credits: 0,
      credits_estimate: 1,
      credits_available: 48,
      affordable: true,
    });
    // No upstream call, no charge, nothing held (the account's remaining would show a held credit only once charged:
    // the tiny account's single credit is still there to be reserved, below).
    expect(await books(), 'no read of the site, no ledger entry, usage unchanged').toEqual(before);
  });

  it('the real batch of the same items then charges exactly what the preview said, item by item', async () => {
    const estimate = await preview(ITEMS);
    const real = await svc.post('/v1/portal/batch', { items: ITEMS });
    expect(real.status).toBe(200);
    expect(real.body.meta.credits).toBe(estimate.body.meta.credits_estimate);
    expect(
      real.body.data.map((d: any) => (d.ok ? { ok: true, cost: d.meta.credits } : { ok: false, error: d.error })),
    ).toEqual(
      estimate.body.data.map((d: any) => (d.ok ? { ok: true, cost: d.would_cost } : { ok: false, error: d.error })),
    );
    // Now cached: the same preview costs nothing.
    const after = await preview(ITEMS);
    expect(after.body.data.map((d: any) => d.would_cost)).toEqual([0, 0, 0, 0, 0, 0, 0]);
    expect(after.body.meta).toMatchObject({
      credits_estimate: 0,
      credits_available: 47,
      affordable: true,
      cache_hits: 5,
    });
  });

  it('max_age: a cached home older than it is priced as a live read (per item, or for the batch), and the batch then charges that', async () => {
    const perItem = await preview([
      { zpid: CACHED_ZPID, maxAge: 0 },
      { zpid: CACHED_ZPID },
      { address: KNOWN_ADDRESS },
    ]);
    expect(perItem.body.data.map((d: any) => d.would_cost)).toEqual([1, 0, 0]);
    const whole: LookupItem[] = [{ zpid: CACHED_ZPID }, { address: KNOWN_ADDRESS }];
    const estimate = await preview(whole, ACCOUNTS.free.key, 0);
    expect(estimate.body.data.map((d: any) => d.would_cost)).toEqual([1, 1]);
    expect(estimate.body.meta).toMatchObject({ credits_estimate: 2, cache_hits: 0 });
    const real = await svc.post('/v1/portal/batch', restBody(whole, 0));
    expect(real.body.data.map((d: any) => d.meta?.credits ?? d.error)).toEqual([1, 1]);
  });

  it('affordable: false when a free account has fewer credits left than needed, true when they suffice or nothing is needed', async () => {
    const before = await books();
    const two = await preview([{ zpid: '999000001' }, { zpid: '999000002' }], ACCOUNTS.tiny.key);
    expect(two.body.meta).toMatchObject({ credits_estimate: 2, credits_available: 1, affordable: false });
    const one = await preview([{ zpid: '999000001' }, { zpid: CACHED_ZPID }], ACCOUNTS.tiny.key);
    expect(one.body.meta).toMatchObject({ credits_estimate: 1, credits_available: 1, affordable: true });
    expect(await books()).toEqual(before);
    // The preview held nothing: the account's one credit is still there for a real lookup.
    expect((await svc.get('/v1/portal/property?zpid=450233440', ACCOUNTS.tiny.key)).body.meta).toMatchObject({
      credits: 1,
      cached: false,
    });
    const spent = await preview([{ zpid: '999000001' }, { zpid: CACHED_ZPID }], ACCOUNTS.tiny.key);
    expect(spent.body.meta).toMatchObject({ credits_estimate: 1, credits_available: 0, affordable: false });
    const cachedOnly = await preview([{ zpid: CACHED_ZPID }], ACCOUNTS.tiny.key);
    expect(cachedOnly.body.meta).toMatchObject({ credits_estimate: 0, credits_available: 0, affordable: true });
  });

  it('takes one unit of the rate window per preview, whatever its items (REST and GraphQL)', async () => {
    const items = Array.from({ length: 20 }, (_, i) => ({ zpid: String(998000000 + i) }));
    // Two tries: a window may roll over between the two requests of one try, never during both.
    for (let attempt = 0; attempt < 2; attempt++) {
      const a = await svc.post('/v1/portal/batch?dry_run=true', { items });
      const b = await svc.post('/v1/portal/batch?dry_run=true', { items });
      const c = await postGql(svc, { query: print(BatchPreviewDocument), variables: { items } });
      const [ra, rb, rc] = [a, b, c].map((x) => rateLeft(x.headers.get('ratelimit')));
      if (rb! > ra! || rc! > rb!) continue;
      expect([ra! - rb!, rb! - rc!]).toEqual([1, 1]);
      return;
    }
    throw new Error('the window rolled over twice');
  });

  it('dry_run=false is the batch itself; any other value, or another parameter, is 400 bad_param, nothing looked up', async () => {
    const before = svc.replay.requests.length;
    const bad = await svc.post('/v1/portal/batch?dry_run=yes', { items: [{ zpid: '999000003' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'bad_param', details: { param: 'dry_run' } });
    const twice = await svc.post('/v1/portal/batch?dry_run=true&dry_run=true', { items: [{ zpid: '999000003' }] });
    expect(twice.status).toBe(400);
    // A misspelt dry_run (GraphQL's name) is refused, not taken for a real batch that reads and bills.
    const misspelt = await svc.post('/v1/portal/batch?dryRun=true', { items: [{ zpid: '999000003' }] });
    expect(misspelt.status).toBe(400);
    expect(misspelt.body.error).toMatchObject({
      code: 'bad_param',
      details: { param: 'dryRun', reason: 'unknown parameter (expected dry_run)' },
    });
    expect(svc.replay.requests.length).toBe(before);
    const real = await svc.post('/v1/portal/batch?dry_run=false', { items: [{ zpid: CACHED_ZPID }] });
    expect(real.status).toBe(200);
    expect(real.body.data[0]).toMatchObject({ ok: true, meta: { cached: true, credits: 0 } });
  });

  it('a body that is not a batch is refused as the batch refuses it', async () => {
    const r = await svc.post('/v1/portal/batch?dry_run=true', { items: [] });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('bad_body');
  });
});
