// REST and GraphQL give the same data, billing and errors for the same lookups.
// Two identical services (own replay of the recorded pages, own store, same accounts, same frozen
// time): the same sequence of lookups goes to one over REST and to the other over GraphQL, and every
// answer is compared field by field after mapping the GraphQL names back to REST's
// (cacheKey → cache_key, …; only took_ms, a measurement, is left out).
import { print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ERROR_CODES, LookupError } from '../../src/contract/index.js';
import { MemoryStore } from '../../src/store/index.js';
import { q, startTestService, type TestService } from '../helpers/service.js';
import { gql, postGql } from './client.js';
import {
  AccountDocument, BatchDocument, PropertyDocument, PropertyRawDocument,
  type BatchQuery, type PropertyQuery, type PropertyQueryVariables, type StatusHint,
} from './gql/graphql.js';
import { switchableStore, type Switch } from './switchable-store.js';

const NOW = new Date('2026-11-22T12:00:00Z');
const HOME_URL = 'https://www.zillow.com/homedetails/6851-Roswell-Rd-APT-O31-Sandy-Springs-GA-30328/2146993218_zpid/';
const ENV = { LOOKUP_TIMEOUT_MS: '800' };

let rest: TestService;
let graph: TestService;
const switches: Switch[] = [];

beforeAll(async () => {
  // Frozen wall clock: both services stamp scrapedAt / fetched_at alike (timers still run).
  vi.useFakeTimers({ toFake: ['Date'], now: NOW });
  const start = async () => {
    const { store, sw } = switchableStore(new MemoryStore());
    switches.push(sw);
    return startTestService({ store, clock: () => new Date(), env: ENV });
  };
  [rest, graph] = await Promise.all([start(), start()]);
});
afterAll(async () => {
  vi.useRealTimers();
  await Promise.all([rest?.close(), graph?.close()]);
});

// ---- GraphQL → REST shapes -------------------------------------------------------------------

type GMeta = Extract<PropertyQuery['property'], { __typename: 'PropertyLookup' }>['meta'];
type GError = { code: string; message: string; details?: unknown };

function restMeta(m: GMeta): Record<string, unknown> {
  const { cacheKey, fetchedAt, tookMs: _took, source, release, warning, credits, cached } = m;
  const { fallbackFrom, descriptors, provider, note } = source;
  return {
    credits,
    cached,
    cache_key: cacheKey,
    fetched_at: fetchedAt,
    source: { provider, note, ...(fallbackFrom == null ? {} : { fallback_from: fallbackFrom }), ...((descriptors as object | null) ?? {}) },
    ...(release == null ? {} : { release }),
    ...(warning == null ? {} : { warning }),
  };
}

const restError = (e: GError) => ({ code: e.code, message: e.message, ...(e.details == null ? {} : { details: e.details }) });

const withoutTook = (meta: Record<string, unknown>) => {
  const { took_ms: _t, ...rest } = meta;
  return rest;
};

const snake = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]));

// ---- one lookup, both faces ------------------------------------------------------------------

interface Single {
  url?: string;
  zpid?: string;
  address?: string;
  status?: 'for_sale' | 'sold' | 'for_rent';
}

async function both(params: Single, key?: string) {
  const query = Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined)) as Record<string, string>;
  const r = await rest.get(`/v1/portal/property?${q(query)}`, key);
  const vars: PropertyQueryVariables = { ...params, status: params.status ? (params.status.toUpperCase() as StatusHint) : undefined };
  const g = await gql(graph, key ?? graph.keys.free!).request(PropertyDocument, vars);
  return { r, g: g.property };
}

/** Same data and meta (success), or the same code, message and details (failure). */
function expectSame({ r, g }: Awaited<ReturnType<typeof both>>): 'ok' | string {
  if (r.status === 200) {
    expect(g.__typename).toBe('PropertyLookup');
    if (g.__typename !== 'PropertyLookup') return 'mismatch';
    expect(g.data).toEqual(r.body.data);
    expect(restMeta(g.meta)).toEqual(withoutTook(r.body.meta));
    return 'ok';
  }
  expect(g.__typename).toBe('LookupError');
  if (g.__typename !== 'LookupError') return 'mismatch';
  expect(restError(g)).toEqual(r.body.error);
  // REST's retry-after header is GraphQL's retryAfter.
  expect(g.retryAfter ?? null).toBe(r.headers.get('retry-after') === null ? null : Number(r.headers.get('retry-after')));
  return g.code;
}

const SOLD_ADDRESS = '2435 Aspen Rd Unit 104, Ames, IA 50010';
const WRONG_UNIT = '2435 Aspen Rd Unit 999, Ames, IA 50010';

describe('single lookups: same data, meta, billing and errors', () => {
  const cases: Array<[string, Single, string]> = [
    ['a link, live', { url: HOME_URL }, 'ok'],
    ['the same link, cached', { url: HOME_URL }, 'ok'],
    ['the same home by zpid, cached', { zpid: '2146993218' }, 'ok'],
    ['a sold home by zpid, with a status hint', { zpid: '114303858', status: 'sold' }, 'ok'],
    ['that home by address (resolution is free)', { address: SOLD_ADDRESS }, 'ok'],
    ['another home by address, live', { address: '661 Lakeview Ave, San Francisco, CA 94112' }, 'ok'],
    ['an apartment-building link', { url: 'https://www.zillow.com/apartments/austin-tx/lenox-grand/CmB93F/' }, 'ok'],
    ['an older building link', { url: 'https://www.zillow.com/b/710-e-dean-keeton-st-austin-tx-CvBTSB/' }, 'ok'],
    ['a rental with the for_rent hint', { zpid: '450233440', status: 'for_rent' }, 'ok'],
    ['an address whose closest match is another unit', { address: WRONG_UNIT }, 'address_ambiguous'],
    ['the same ambiguous address again (memo)', { address: WRONG_UNIT }, 'address_ambiguous'],
    ['a zpid the site does not have', { zpid: '999999999' }, 'not_found'],
    ['the bot wall', { zpid: '999000401' }, 'upstream_blocked'],
    ['a malformed page', { zpid: '999000501' }, 'upstream_bad_response'],
    ['no locator', {}, 'missing_param'],
    ['two locators', { zpid: '1', address: SOLD_ADDRESS }, 'bad_param'],
    ['a link off the site', { url: 'https://example.com/x/1_zpid/' }, 'bad_param'],
    ['a zpid with letters', { zpid: '12a' }, 'bad_param'],
    ['an address too short', { address: '1 A' }, 'bad_param'],
  ];

  it.each(cases)('%s', async (_name, params, outcome) => {
    expect(expectSame(await both(params))).toBe(outcome);
  });

  it('raw: the same unmapped record', async () => {
    const r = await rest.get('/v1/portal/property?zpid=2146993218&raw=true');
    const g = await gql(graph).request(PropertyRawDocument, { zpid: '2146993218', raw: true });
    expect(g.property).toMatchObject({ __typename: 'PropertyLookup', meta: { credits: 0, cached: true } });
    if (g.property.__typename === 'PropertyLookup') expect(g.property.data.raw).toEqual(r.body.data.raw);
  });

  describe.each([
    ['a server error', { status: 503, body: 'oops' }, 'upstream_error'],
    ['a dropped connection', { closeSocket: true }, 'upstream_unreachable'],
    ['a read slower than the lookup timeout', { delayMs: 1500 }, 'upstream_timeout'],
  ])('the site fails: %s', (_name, fault, code) => {
    it(`→ ${code} on both, unbilled`, async () => {
      const usedBefore = [(await rest.get('/v1/account')).body.data.used, (await gql(graph).request(AccountDocument)).account.used];
      for (const s of [rest, graph]) s.replay.faults.set('/homedetails/777000001_zpid/', fault);
      try {
        expect(expectSame(await both({ zpid: '777000001' }))).toBe(code);
        expect([(await rest.get('/v1/account')).body.data.used, (await gql(graph).request(AccountDocument)).account.used]).toEqual(usedBefore);
      } finally {
        for (const s of [rest, graph]) s.replay.faults.clear();
      }
    });
  });

  it('credits exhausted: the same 402 body; cached homes still work', async () => {
    const tiny = rest.keys.tiny!;
    expect(expectSame(await both({ zpid: '999000101' }, tiny))).toBe('ok');
    const refused = await both({ zpid: '999000102' }, tiny);
    expect(expectSame(refused)).toBe('credits_exhausted');
    expect(refused.r.status).toBe(402);
    expect(expectSame(await both({ zpid: '2146993218' }, tiny))).toBe('ok');
  });

  it('the store down mid-lookup: the same store_unavailable, retry-after 30', async () => {
    for (const sw of switches) sw.failing.set('getEntries', () => new LookupError('store_unavailable', { retryAfter: 30 }));
    try {
      const pair = await both({ zpid: '999000103' });
      expect(expectSame(pair)).toBe('store_unavailable');
      expect(pair.r.status).toBe(503);
    } finally {
      for (const sw of switches) sw.failing.clear();
    }
  });
});

describe('batches: same results, meta and billing', () => {
  type Item = { url: string } | { zpid: string } | { address: string };

  async function batchBoth(items: Item[], status?: 'for_sale' | 'sold' | 'for_rent') {
    const r = await rest.post('/v1/portal/batch', { items, ...(status ? { status } : {}) });
    const g = await gql(graph).request(BatchDocument, { items, ...(status ? { status: status.toUpperCase() as StatusHint } : {}) });
    return { r, g: g.properties! };
  }

  function expectSameBatch({ r, g }: { r: Awaited<ReturnType<TestService['post']>>; g: NonNullable<BatchQuery['properties']> }) {
    expect(r.status).toBe(200);
    expect(g.results).toHaveLength(r.body.data.length);
    g.results.forEach((gr, i) => {
      const rr = r.body.data[i];
      expect({ index: gr.index, ok: gr.ok }).toEqual({ index: rr.index, ok: rr.ok });
      if (rr.ok) {
        expect(gr.data).toEqual(rr.data);
        expect(restMeta(gr.meta!)).toEqual(withoutTook(rr.meta));
        expect(gr.error).toBeNull();
      } else {
        expect(restError(gr.error!)).toEqual(rr.error);
        expect(gr.data).toBeNull();
        expect(gr.meta).toBeNull();
      }
    });
    expect(withoutTook(snake(g.meta))).toEqual(withoutTook(r.body.meta));
  }

  it('a mixed batch: hits, live reads, duplicates, invalid items and every failure kind', async () => {
    const pair = await batchBoth([
      { url: HOME_URL },
      { zpid: '999000104' },
      { zpid: '999000104' },
      { address: '318 Demo Oak Ln Unit 4, Raleigh, NC 27601' },
      { address: WRONG_UNIT },
      { zpid: '999999998' },
      { zpid: 'abc' },
      { url: 'https://example.com/' },
      { zpid: '999000402' },
      { zpid: '999000502' },
    ]);
    expectSameBatch(pair);
    expect(pair.r.body.meta).toMatchObject({ count: 10, credits: 2 });
  });

  it('the same home many times: read once, billed once', async () => {
    const pair = await batchBoth(Array.from({ length: 6 }, () => ({ zpid: '999000105' })));
    expectSameBatch(pair);
    expect(pair.r.body.meta).toMatchObject({ succeeded: 6, credits: 1, cache_hits: 5 });
  });

  it('with a status hint for every item', async () => {
    expectSameBatch(await batchBoth([{ zpid: '999000106' }, { zpid: '114303858' }], 'for_sale'));
  });

  it('the request-level refusals: no items → bad_body, 51 items → too_many_items', async () => {
    const empty = await rest.post('/v1/portal/batch', { items: [] });
    const gEmpty = await postGql(graph, { query: print(BatchDocument), variables: { items: [] } });
    expect(empty.status).toBe(400);
    const ge = gEmpty.body.errors[0];
    expect(gEmpty.body.data).toEqual({ properties: null });
    expect({ code: ge.extensions.code, message: ge.message, details: ge.extensions.details }).toEqual(empty.body.error);

    const many = Array.from({ length: 51 }, () => ({ zpid: '999000101' }));
    const tooMany = await rest.post('/v1/portal/batch', { items: many });
    const gTooMany = await postGql(graph, { query: print(BatchDocument), variables: { items: many } });
    expect(tooMany.status).toBe(400);
    expect(gTooMany.status).toBe(400);
    const e = gTooMany.body.errors[0];
    expect({ code: e.extensions.code, message: e.message, details: e.extensions.details }).toEqual(tooMany.body.error);
  });
});

describe('the caller and the account', () => {
  it.each([
    ['missing', null, 'missing_api_key'],
    ['unknown', 'nope_not_a_key', 'invalid_api_key'],
  ])('API key %s: the same 401 and code', async (_name, key, code) => {
    const r = await rest.get('/v1/account', key);
    const g = await postGql(graph, { query: print(AccountDocument) }, { key });
    expect(r.status).toBe(401);
    expect(g.status).toBe(401);
    expect(r.body.error).toEqual({ code, message: ERROR_CODES[code as 'missing_api_key'].message });
    expect(g.body.errors).toEqual([{ message: r.body.error.message, extensions: { code } }]);
  });

  it('the store down: the same 503 store_unavailable with retry-after 30', async () => {
    for (const sw of switches) sw.failing.set('getAccountByKeyHash', () => new LookupError('store_unavailable', { retryAfter: 30 }));
    try {
      const r = await rest.get('/v1/account');
      const g = await postGql(graph, { query: print(AccountDocument) });
      expect([r.status, g.status]).toEqual([503, 503]);
      expect([r.headers.get('retry-after'), g.headers.get('retry-after')]).toEqual(['30', '30']);
      expect(g.body.errors[0]).toMatchObject({ message: r.body.error.message, extensions: { code: r.body.error.code } });
    } finally {
      for (const sw of switches) sw.failing.clear();
    }
  });

  it.each(['free', 'tiny', 'paid'])('account %s: the same usage after everything above', async (name) => {
    const r = await rest.get('/v1/account', rest.keys[name]);
    const g = await gql(graph, graph.keys[name]!).request(AccountDocument);
    expect(snake(g.account)).toEqual(r.body.data);
  });

  it('both ledgers hold the same charges', async () => {
    const strip = (l: Awaited<ReturnType<TestService['store']['ledger']>>) =>
      l.map(({ accountId, cacheKey, kind }) => ({ accountId, cacheKey, kind })).sort((a, b) => a.cacheKey.localeCompare(b.cacheKey));
    const [lr, lg] = await Promise.all([rest.store.ledger(), graph.store.ledger()]);
    expect(lr.length).toBeGreaterThan(5);
    expect(strip(lg)).toEqual(strip(lr));
  });
});
