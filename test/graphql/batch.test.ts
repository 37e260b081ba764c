// Query.properties, many lookups in one operation, the lookup limit, batched requests and @stream.
import { buildHTTPExecutor } from '@graphql-tools/executor-http';
import { print } from 'graphql';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, LookupError } from '../../src/contract/index.js';
import { MemoryStore } from '../../src/store/index.js';
import { startReplayServer } from '../../src/replay/server.js';
import { startGatedProxy, type GatedProxy } from '../helpers/gated-proxy.js';
import { startTestService, type ReplayServer, type TestService } from '../helpers/service.js';
import { endpoint, gql, postGql } from './client.js';
import {
  AccountDocument,
  BatchDocument,
  BatchRawDocument,
  BatchStreamedDocument,
  MixedDocument,
} from '../../src/graphql/operations/generated/graphql.js';
import { switchableStore } from './switchable-store.js';

const HOME_URL = 'https://www.zillow.com/homedetails/6851-Roswell-Rd-APT-O31-Sandy-Springs-GA-30328/2146993218_zpid/';
const SOLD_ADDRESS = '2435 Aspen Rd Unit 104, Ames, IA 50010';

const { store, sw } = switchableStore(new MemoryStore());
let svc: TestService;
let site: ReplayServer;
/** Between the service and the site: lets a test hold one home's read for as long as it needs. */
let proxy: GatedProxy;
beforeAll(async () => {
  site = await startReplayServer({ host: '127.0.0.1', port: 0 });
  proxy = await startGatedProxy(site.origin, { open: true });
  // No key cache: every request asks the store, so a store failing at authentication shows.
  // On a socket: @stream's answer is read while it streams.
  svc = await startTestService({
    socket: 'streaming',
    store,
    replayServer: site,
    env: { AUTH_CACHE_TTL_MS: '0', PORTAL_ORIGIN: proxy.origin },
  });
});
afterAll(async () => {
  await svc.close();
  await proxy.close();
  await site.close();
});
afterEach(() => svc.replay.faults.clear());

const reads = (needle: string) => svc.replay.requests.filter((r) => r.path.includes(needle)).length;
const used = async (key = svc.keys.free) => (await gql(svc, key).request(AccountDocument)).account.used;
const zpidItems = (n: number, zpid = '15192198') => Array.from({ length: n }, () => ({ zpid }));

describe('Query.properties', () => {
  it('one result per item, in item order; failed items are results; totals as REST counts them', async () => {
    const before = await used();
    const { properties } = await gql(svc).request(BatchDocument, {
      items: [
        { url: HOME_URL },
        { address: 'nowhere' },
        { zpid: '114303858' },
        { zpid: '999999999' },
        { zpid: '2146993218' },
      ],
    });
    expect(properties).not.toBeNull();
    const results = properties!.results;
    expect(results.map((r) => [r.index, r.ok, r.data?.zpid ?? r.error?.code])).toEqual([
      [0, true, '2146993218'],
      [1, false, 'bad_param'],
      [2, true, '114303858'],
      [3, false, 'not_found'],
      [4, true, '2146993218'],
    ]);
    // The same home twice in one batch: read once, billed once; the second is a hit.
    expect(results[0]!.meta).toMatchObject({ credits: 1, cached: false });
    expect(results[4]!.meta).toMatchObject({ credits: 0, cached: true });
    expect(results[1]!.data).toBeNull();
    expect(results[1]!.meta).toBeNull();
    expect(results[0]!.error).toBeNull();
    expect(properties!.meta).toMatchObject({ count: 5, succeeded: 3, failed: 2, cacheHits: 1, credits: 2 });
    expect(reads('2146993218')).toBe(1);
    expect(await used()).toBe(before + 2);
  });

  it('raw only when asked for and selected', async () => {
    const { properties } = await gql(svc).request(BatchRawDocument, { items: [{ zpid: '114303858' }], raw: true });
    expect(properties!.results[0]!.data!.raw).toMatchObject({ zpid: 114303858 });
    const plain = await gql(svc).request(BatchRawDocument, { items: [{ zpid: '114303858' }] });
    expect(plain.properties!.results[0]!.data!.raw).toBeNull();
  });

  it('an item with two locators fails in place with bad_param, as in REST (LookupItem is not @oneOf: it has maxAge too)', async () => {
    const before = await used();
    const r = await postGql(svc, { query: print(BatchDocument), variables: { items: [{ zpid: '1', url: HOME_URL }] } });
    expect(r.status).toBe(200);
    expect(r.body.data.properties.results[0]).toMatchObject({
      ok: false,
      error: { code: 'bad_param', details: { param: 'url,zpid' } },
    });
    expect(await used()).toBe(before);
  });

  it('no items → bad_body (as REST), as a coded error', async () => {
    const r = await postGql(svc, { query: print(BatchDocument), variables: { items: [] } });
    expect(r.body.data).toEqual({ properties: null });
    expect(r.body.errors[0].extensions.code).toBe('bad_body');
  });
});

describe("every lookup of an operation shares the request's one loader", () => {
  it('aliases of property plus a batch read each home once and bill it once', async () => {
    const before = await used();
    const readsBefore = reads('/homedetails/15192198_zpid/');
    const r = await gql(svc).request(MixedDocument, {
      zpid: '15192198',
      url: 'https://www.zillow.com/homedetails/15192198_zpid/',
      items: [{ zpid: '15192198' }, { zpid: '15192198' }],
    });
    expect(reads('/homedetails/15192198_zpid/')).toBe(readsBefore + 1);
    const metas = [r.a, r.b, r.c].map((p) => ('meta' in p ? p.meta : null));
    const batchMetas = r.properties!.results.map((x) => x.meta);
    const credits = [...metas, ...batchMetas].map((m) => m!.credits);
    expect(credits.reduce((a, b) => a + b, 0)).toBe(1);
    expect(r.properties!.meta.credits + metas.reduce((n, m) => n + m!.credits, 0)).toBe(1);
    expect(await used()).toBe(before + 1);
  });
});

describe('the limit of 50 lookups per operation (property fields + properties items)', () => {
  const aliased = (n: number) =>
    Array.from({ length: n }, (_, i) => `p${i}: property(zpid: "15192198") { __typename }`).join('\n');

  it('51 items in a variable: refused with too_many_items before any upstream call or charge', async () => {
    const before = await used();
    const requests = svc.replay.requests.length;
    const r = await postGql(svc, { query: print(BatchDocument), variables: { items: zpidItems(51, '114303858') } });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([
      expect.objectContaining({ extensions: { code: 'too_many_items', details: { max: 50, received: 51 } } }),
    ]);
    expect(r.body.data).toBeUndefined();
    expect(svc.replay.requests.length).toBe(requests);
    expect(await used()).toBe(before);
  });

  it('counts property fields and items together: 30 aliases + 21 items is refused, 30 + 20 runs', async () => {
    const requests = svc.replay.requests.length;
    const query = `query($items: [LookupItem!]!) { ${aliased(30)} properties(items: $items) { meta { count } } }`;
    const over = await postGql(svc, { query, variables: { items: zpidItems(21) } });
    expect(over.body.errors[0].extensions).toEqual({ code: 'too_many_items', details: { max: 50, received: 51 } });
    expect(svc.replay.requests.length).toBe(requests);
    const ok = await postGql(svc, { query, variables: { items: zpidItems(20) } });
    expect(ok.body.errors).toBeUndefined();
    expect(ok.body.data.properties.meta.count).toBe(20);
  });

  it('reads the variables of every request, though Yoga caches validation per document', async () => {
    const query = print(BatchDocument);
    const small = await postGql(svc, { query, variables: { items: zpidItems(2) } });
    expect(small.body.errors).toBeUndefined();
    const big = await postGql(svc, { query, variables: { items: zpidItems(60) } });
    expect(big.body.errors[0].extensions.code).toBe('too_many_items');
  });

  it('reads @skip/@include with the variables as the executor coerces them (defaults applied)', async () => {
    // 50 items plus a property field skipped by a variable's default: 50 lookups run, not 51.
    const query = `query($items: [LookupItem!]!, $skip: Boolean = true, $keep: Boolean = false) {
      skipped: property(zpid: "15192198") @skip(if: $skip) { __typename }
      notIncluded: property(zpid: "15192198") @include(if: $keep) { __typename }
      properties(items: $items) { meta { count } }
    }`;
    const r = await postGql(svc, { query, variables: { items: zpidItems(50) } });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data).toEqual({ properties: { meta: { count: 50 } } });
    // Sent explicitly, the same variables do count.
    const over = await postGql(svc, { query, variables: { items: zpidItems(50), skip: false } });
    expect(over.body.errors[0].extensions).toEqual({ code: 'too_many_items', details: { max: 50, received: 51 } });
  });

  it('counts literal lists and variable defaults too', async () => {
    const literal = `{ properties(items: [${zpidItems(51)
      .map(() => '{ zpid: "15192198" }')
      .join(', ')}]) { meta { count } } }`;
    expect((await postGql(svc, { query: literal })).body.errors[0].extensions.code).toBe('too_many_items');
    const withDefault = `query($items: [LookupItem!]! = [${zpidItems(51)
      .map(() => '{ zpid: "15192198" }')
      .join(', ')}]) { properties(items: $items) { meta { count } } }`;
    expect((await postGql(svc, { query: withDefault })).body.errors[0].extensions.code).toBe('too_many_items');
  });
});

describe('batched requests (a JSON array of operations)', () => {
  it('share one lookup context: the same home in two operations is read and billed once', async () => {
    const before = await used();
    const readsBefore = reads('114303858');
    // 114303858 is cached by now; use a home not looked up in this file yet.
    const home = '/apartments/austin-tx/lenox-grand/CmB93F/';
    const op = {
      query:
        'query($u: String) { property(url: $u) { ... on PropertyLookup { meta { credits cached } } ... on LookupError { code } } }',
      variables: { u: `https://www.zillow.com${home}` },
    };
    const authBefore = sw.calls.get('getAccountByKeyHash') ?? 0;
    const r = await postGql(svc, [op, op, { query: '{ account { used } }' }]);
    expect(r.status).toBe(200);
    // One context for the whole HTTP request: the key is checked once, not once per operation.
    expect(sw.calls.get('getAccountByKeyHash')).toBe(authBefore + 1);
    expect(Array.isArray(r.body)).toBe(true);
    const credits = (r.body as Array<{ data: { property: { meta: { credits: number } } } }>)
      .slice(0, 2)
      .map((x) => x.data.property.meta.credits);
    expect(credits.sort()).toEqual([0, 1]);
    expect(reads('lenox-grand')).toBe(1);
    expect(reads('114303858')).toBe(readsBefore);
    expect(await used()).toBe(before + 1);
  });

  it('count their lookups together: 2 × 30 items is refused as a whole, before any operation runs', async () => {
    const requests = svc.replay.requests.length;
    const op = { query: print(BatchDocument), variables: { items: zpidItems(30, '777000001') } };
    const r = await postGql(svc, [op, op]);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].extensions).toEqual({ code: 'too_many_items', details: { max: 50, received: 60 } });
    expect(svc.replay.requests.length).toBe(requests);
  });

  it('at most 5 operations per request; beyond, HTTP 413 bad_body for the whole request', async () => {
    const op = { query: '{ account { used } }' };
    expect(
      (
        await postGql(
          svc,
          Array.from({ length: 5 }, () => op),
        )
      ).status,
    ).toBe(200);
    const r = await postGql(
      svc,
      Array.from({ length: 6 }, () => op),
    );
    expect(r.status).toBe(413);
    expect(r.body.errors).toEqual([
      {
        message: 'At most 5 operations per batched request.',
        extensions: { code: 'bad_body', details: { reason: 'too many operations', max: 5, received: 6 } },
      },
    ]);
  });

  describe('the API key is checked once for the whole request, which takes its status', () => {
    const ops = [{ query: '{ account { used } }' }, { query: '{ __typename }' }];

    it.each([
      ['missing', null, 'missing_api_key'],
      ['unknown', 'not_a_real_key', 'invalid_api_key'],
    ])('%s → HTTP 401, one error with the spec code, nothing executed', async (_name, key, code) => {
      const requests = svc.replay.requests.length;
      const r = await postGql(svc, [...ops, { query: '{ property(zpid: "777000003") { __typename } }' }], { key });
      expect(r.status).toBe(401);
      expect(r.body).toEqual({
        errors: [{ message: ERROR_CODES[code as 'missing_api_key'].message, extensions: { code } }],
      });
      expect(svc.replay.requests.length).toBe(requests);
    });

    it('the store down while authenticating → HTTP 503 store_unavailable, retry-after: 30', async () => {
      sw.failing.set('getAccountByKeyHash', () => new LookupError('store_unavailable', { retryAfter: 30 }));
      try {
        const r = await postGql(svc, ops);
        expect(r.status).toBe(503);
        expect(r.headers.get('retry-after')).toBe('30');
        expect(r.body).toEqual({
          errors: [
            {
              message: ERROR_CODES.store_unavailable.message,
              extensions: { code: 'store_unavailable', retryAfter: 30 },
            },
          ],
        });
      } finally {
        sw.failing.clear();
      }
    });

    it('introspection-only operations need no key, batched or not', async () => {
      const r = await postGql(svc, [{ query: '{ __typename }' }, { query: '{ __type(name: "Query") { name } }' }], {
        key: null,
      });
      expect(r.status).toBe(200);
      expect(r.body).toEqual([{ data: { __typename: 'Query' } }, { data: { __type: { name: 'Query' } } }]);
    });
  });
});

describe('@stream on results', () => {
  it('sends each home as it finishes: a fast one arrives while a slow one is still being read', async () => {
    const SLOW = '/homedetails/999000777_zpid/';
    const release = proxy.hold(SLOW);
    try {
      const executor = buildHTTPExecutor({ endpoint: endpoint(svc), headers: { 'x-api-key': svc.keys.free! } });
      const result = await executor({
        document: BatchStreamedDocument,
        variables: { items: [{ zpid: '999000777' }, { zpid: '2146993218' }, { address: 'x' }] },
      });
      expect(Symbol.asyncIterator in Object(result)).toBe(true);
      const payloads = (result as AsyncIterable<any>)[Symbol.asyncIterator]();
      const indexesOf = (payload: any): number[] =>
        (payload.data?.properties?.results ?? []).map((r: { index: number }) => r.index);
      // Each payload is the result so far. The two fast items come while the slow home's read is held.
      let sofar: any;
      while (!sofar || indexesOf(sofar).length < 2) {
        const next = await payloads.next();
        expect(next.done, 'the stream ended before the fast items arrived').toBe(false);
        sofar = next.value;
      }
      expect(indexesOf(sofar).sort()).toEqual([1, 2]);
      await proxy.received(SLOW);
      release();
      let last = sofar;
      for (let next = await payloads.next(); !next.done; next = await payloads.next()) last = next.value;
      // Items come in the order they finish, each with its index; the slow one last.
      const order = indexesOf(last);
      expect(order.slice(0, 2).sort()).toEqual([1, 2]);
      expect(order[2]).toBe(0);
      expect(last.data.properties.results[2]).toMatchObject({ index: 0, ok: false, error: { code: 'not_found' } });
      expect(last.data.properties.meta).toEqual({ count: 3, credits: 0 });
    } finally {
      release();
    }
  });

  it('without @stream the same field is one list in item order', async () => {
    const { properties } = await gql(svc).request(BatchDocument, { items: [{ address: 'x' }, { zpid: '2146993218' }] });
    expect(properties!.results.map((r) => r.index)).toEqual([0, 1]);
  });
});
