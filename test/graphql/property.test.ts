// Query.property and Query.account through the service's routes, as a client sees them: typed documents
// (codegen) through graphql-request; plain fetch where the HTTP status or headers matter.
import { ClientError } from 'graphql-request';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, LookupError } from '../../src/contract/index.js';
import { MemoryStore } from '../../src/store/index.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { gql, postGql } from './client.js';
import {
  AccountDocument,
  PropertyDocument,
  PropertyRawDocument,
} from '../../src/graphql/operations/generated/graphql.js';
import { switchableStore } from './switchable-store.js';

const HOME_URL = 'https://www.zillow.com/homedetails/6851-Roswell-Rd-APT-O31-Sandy-Springs-GA-30328/2146993218_zpid/';

const { store, sw } = switchableStore(new MemoryStore());
let svc: TestService;
beforeAll(async () => {
  // No key cache: every request asks the store, so a store failing at authentication shows.
  svc = await startTestService({ store, env: { AUTH_CACHE_TTL_MS: '0' } });
});
afterAll(() => svc.close());

const reads = (needle: string) => svc.replay.requests.filter((r) => r.path.includes(needle)).length;
const used = async () => (await gql(svc).request(AccountDocument)).account.used;

/** The GraphQL errors of a rejected request, with its HTTP status. */
async function rejection(
  p: Promise<unknown>,
): Promise<{ status: number; errors: Array<{ message: string; extensions?: Record<string, unknown> }> }> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ClientError);
  const { response } = e as ClientError;
  return { status: response.status, errors: (response.errors ?? []) as never };
}

describe('Query.property', () => {
  it('looks a home up live: PropertyLookup with the record and meta; 1 credit', async () => {
    const { property } = await gql(svc).request(PropertyDocument, { url: HOME_URL });
    expect(property.__typename).toBe('PropertyLookup');
    if (property.__typename !== 'PropertyLookup') return;
    expect(property.data.zpid).toBe('2146993218');
    expect(property.data.price).toBeGreaterThan(0);
    expect(property.data.photos.length).toBeGreaterThan(0);
    expect(property.meta).toMatchObject({
      credits: 1,
      cached: false,
      cacheKey: 'zpid:2146993218',
      release: 'v1',
      warning: null,
    });
    expect(property.meta.source.provider).toBe('self_hosted');
    expect(property.meta.fetchedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await used()).toBe(1);
  });

  it('again: a cache hit, 0 credits, no upstream read', async () => {
    const before = reads('2146993218');
    const { property } = await gql(svc).request(PropertyDocument, { zpid: '2146993218' });
    expect(property).toMatchObject({ __typename: 'PropertyLookup', meta: { credits: 0, cached: true } });
    expect(reads('2146993218')).toBe(before);
    expect(await used()).toBe(1);
  });

  it('data.raw: the unmapped record when raw: true (and selected), null otherwise', async () => {
    const withRaw = await gql(svc).request(PropertyRawDocument, { zpid: '2146993218', raw: true });
    expect(withRaw.property.__typename).toBe('PropertyLookup');
    if (withRaw.property.__typename !== 'PropertyLookup') return;
    expect(withRaw.property.data.raw).toMatchObject({ zpid: 2146993218 });
    const without = await gql(svc).request(PropertyRawDocument, { zpid: '2146993218' });
    expect(without.property).toMatchObject({ data: { raw: null } });
  });

  it.each([
    ['nothing', {}, 'missing_param'],
    ['two locators', { zpid: '2146993218', url: HOME_URL }, 'bad_param'],
    ['a link off the listing site', { url: 'https://example.com/homedetails/1_zpid/' }, 'bad_param'],
    ['a zpid with letters', { zpid: '12ab' }, 'bad_param'],
    ['an address without a house number', { address: 'Main Street, Springfield, IL' }, 'bad_param'],
  ])('invalid input (%s) is a LookupError %s, as data, free, with no upstream call', async (_name, vars, code) => {
    const before = svc.replay.requests.length;
    const { property } = await gql(svc).request(PropertyDocument, vars);
    expect(property).toMatchObject({ __typename: 'LookupError', code });
    if (property.__typename === 'LookupError') expect(property.message).not.toBe('');
    expect(svc.replay.requests.length).toBe(before);
    expect(await used()).toBe(1);
  });

  it('a home the site does not have: LookupError not_found, with the spec message', async () => {
    const { property } = await gql(svc).request(PropertyDocument, { zpid: '999999999' });
    expect(property).toMatchObject({ __typename: 'LookupError', code: 'not_found' });
  });

  it('takes the status hint as an enum (FOR_SALE, SOLD, FOR_RENT)', async () => {
    const { property } = await gql(svc).request(PropertyDocument, { zpid: '114303858', status: 'SOLD' });
    expect(property).toMatchObject({ __typename: 'PropertyLookup', data: { homeStatus: 'RECENTLY_SOLD' } });
    const bad = await postGql(svc, { query: '{ property(zpid: "1", status: sold) { __typename } }' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].extensions.code).toBe('bad_param');
  });
});

describe('the API key', () => {
  it.each([
    ['missing', null, 'missing_api_key'],
    ['empty', '', 'missing_api_key'],
    ['unknown', 'not_a_real_key', 'invalid_api_key'],
  ])('%s → HTTP 401, extensions.code %s, nothing executed', async (_name, key, code) => {
    const before = svc.replay.requests.length;
    const r = await rejection(gql(svc, key).request(PropertyDocument, { zpid: '15192198' }));
    expect(r.status).toBe(401);
    expect(r.errors).toEqual([{ message: ERROR_CODES[code as 'missing_api_key'].message, extensions: { code } }]);
    expect(svc.replay.requests.length).toBe(before);
  });

  it('is not needed for introspection alone (the schema is public, like /openapi.json)', async () => {
    const r = await postGql(svc, { query: '{ __typename __type(name: "PortalProperty") { name } }' }, { key: null });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: { __typename: 'Query', __type: { name: 'PortalProperty' } } });
  });

  it('is needed as soon as one real field is asked for', async () => {
    const r = await postGql(svc, { query: '{ __typename account { used } }' }, { key: null });
    expect(r.status).toBe(401);
    expect(r.body.errors[0].extensions.code).toBe('missing_api_key');
  });
});

describe('the store', () => {
  it('down while authenticating → HTTP 503 store_unavailable with retry-after: 30', async () => {
    sw.failing.set('getAccountByKeyHash', () => new LookupError('store_unavailable', { retryAfter: 30 }));
    try {
      const r = await postGql(svc, { query: '{ account { used } }' });
      expect(r.status).toBe(503);
      expect(r.headers.get('retry-after')).toBe('30');
      expect(r.body.errors).toEqual([
        { message: ERROR_CODES.store_unavailable.message, extensions: { code: 'store_unavailable', retryAfter: 30 } },
      ]);
    } finally {
      sw.failing.clear();
    }
  });

  it('down during a lookup → LookupError store_unavailable as data, with retryAfter', async () => {
    sw.failing.set('getEntries', () => new LookupError('store_unavailable', { retryAfter: 30 }));
    try {
      const { property } = await gql(svc).request(PropertyDocument, { zpid: '15192198' });
      expect(property).toMatchObject({ __typename: 'LookupError', code: 'store_unavailable', retryAfter: 30 });
    } finally {
      sw.failing.clear();
    }
  });

  it('a bug (an unexpected error) stays masked: code internal, the spec message, no internals', async () => {
    sw.failing.set('getAccountByKeyHash', () => new Error('ECONNREFUSED 10.0.0.5:6379 secret-host'));
    try {
      const r = await postGql(svc, { query: '{ account { used } }' });
      expect(r.status).toBe(500);
      expect(JSON.stringify(r.body)).not.toContain('ECONNREFUSED');
      expect(r.body.errors[0]).toMatchObject({
        message: ERROR_CODES.internal.message,
        extensions: { code: 'internal' },
      });
    } finally {
      sw.failing.clear();
    }
  });
});

describe('Query.account', () => {
  it("is the caller's plan and usage", async () => {
    const { account } = await gql(svc).request(AccountDocument);
    expect(account).toMatchObject({
      plan: 'free',
      included: 50,
      overageEnabled: false,
      periodEnd: null,
      spendLimitUsd: null,
    });
    expect(account.used + account.remaining).toBe(50);
  });
});
