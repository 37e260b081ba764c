// Single lookups end to end over HTTP: live reads of recorded pages, the 24 h cache, billing, raw,
// addresses and the ambiguity memo.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROPERTY_FIELDS, PropertyResponse } from '../../src/contract/index.js';
import { expectSchema } from '../helpers/schema.js';
import { startTestService, q, type TestService } from '../helpers/service.js';

let svc: TestService;
let now = new Date('2026-11-22T12:00:00Z');
beforeAll(async () => {
  svc = await startTestService({ clock: () => now });
});
afterAll(() => svc.close());

const HOME_URL = 'https://www.zillow.com/homedetails/6851-Roswell-Rd-APT-O31-Sandy-Springs-GA-30328/2146993218_zpid/';
const upstreamHits = (needle: string) => svc.replay.requests.filter((r) => r.path.includes(needle)).length;
const usage = async (key = svc.keys.free) => (await svc.get('/v1/account', key)).body.data;

describe('a home by link', () => {
  let first: any;

  it('first lookup: 200, MISS, 1 credit, every field present', async () => {
    const r = await svc.get(`/v1/portal/property?${q({ url: HOME_URL })}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('x-cache')).toBe('MISS');
    expectSchema(PropertyResponse, r.body);
    expect(Object.keys(r.body.data).sort()).toEqual([...PROPERTY_FIELDS].sort());
    expect(r.body.data.raw).toBeUndefined();
    expect(r.body.data.zpid).toBe('2146993218');
    expect(r.body.data.price).toBeGreaterThan(0);
    expect(r.body.meta).toMatchObject({
      credits: 1,
      cached: false,
      cache_key: 'zpid:2146993218',
      release: 'v1',
      source: { provider: 'self_hosted' },
    });
    expect(r.body.meta.fetched_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(r.body.meta.warning).toBeUndefined();
    expect(upstreamHits('2146993218_zpid')).toBe(1);
    first = r.body;
  });

  it('repeat within 24 h: HIT, 0 credits, original fetched_at, no upstream read', async () => {
    now = new Date(now.getTime() + 3600_000);
    const r = await svc.get(`/v1/portal/property?${q({ url: HOME_URL })}`);
    expect(r.headers.get('x-cache')).toBe('HIT');
    expect(r.body.meta).toMatchObject({
      credits: 0,
      cached: true,
      cache_key: 'zpid:2146993218',
      fetched_at: first.meta.fetched_at,
    });
    expect(r.body.data).toEqual(first.data);
    expect(upstreamHits('2146993218_zpid')).toBe(1);
  });

  it('the same home by zpid is a hit', async () => {
    const r = await svc.get('/v1/portal/property?zpid=2146993218');
    expect(r.headers.get('x-cache')).toBe('HIT');
    expect(r.body.meta.credits).toBe(0);
    expect(r.body.data).toEqual(first.data);
  });

  it('raw=true adds the unmapped record, also on a hit', async () => {
    const r = await svc.get('/v1/portal/property?zpid=2146993218&raw=true');
    expect(r.body.data.raw).toBeTypeOf('object');
    expect(r.body.data.raw.zpid).toBe(2146993218);
    const { raw: _raw, ...rest } = r.body.data;
    expect(rest).toEqual(first.data);
  });

  it('billed exactly once for all of this', async () => {
    expect((await usage()).used).toBe(1);
  });
});

describe('a home by zpid alone (our extension)', () => {
  it('reads the home-details page for that zpid', async () => {
    const r = await svc.get('/v1/portal/property?zpid=114303858');
    expect(r.status).toBe(200);
    expect(r.body.data.zpid).toBe('114303858');
    expect(r.body.data.homeStatus).toBe('RECENTLY_SOLD');
    expect(r.body.meta).toMatchObject({ credits: 1, cached: false, cache_key: 'zpid:114303858' });
  });

  it('leading zeros name the same home', async () => {
    const r = await svc.get('/v1/portal/property?zpid=00114303858');
    expect(r.headers.get('x-cache')).toBe('HIT');
  });
});

describe('a home by address', () => {
  const ADDRESS = '661 Lakeview Ave, San Francisco, CA 94112';

  it('resolves, reads and bills once; cache key is the normalized address', async () => {
    const r = await svc.get(`/v1/portal/property?${q({ address: ADDRESS })}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('x-cache')).toBe('MISS');
    expect(r.body.data.zpid).toBe('15192198');
    expect(r.body.meta).toMatchObject({ credits: 1, cache_key: 'addr:661 lakeview ave, san francisco, ca 94112' });
  });

  it('the same address written differently is a hit', async () => {
    const r = await svc.get(
      `/v1/portal/property?${q({ address: '661 LAKEVIEW AVENUE  San Francisco CA 94112-1234' })}`,
    );
    expect(r.headers.get('x-cache')).toBe('HIT');
    expect(r.body.meta.credits).toBe(0);
  });

  it('a link or zpid lookup of a home first fetched by address is a hit', async () => {
    const r = await svc.get(
      `/v1/portal/property?${q({ url: 'https://www.zillow.com/homedetails/661-Lakeview-Ave-San-Francisco-CA-94112/15192198_zpid/' })}`,
    );
    expect(r.headers.get('x-cache')).toBe('HIT');
    expect(r.body.meta).toMatchObject({ credits: 0, cache_key: 'zpid:15192198' });
  });

  it('an address of a home first fetched by zpid is a hit (resolution is free)', async () => {
    const r = await svc.get(`/v1/portal/property?${q({ address: '2435 Aspen Rd Unit 104, Ames, IA 50010' })}`);
    expect(r.headers.get('x-cache')).toBe('HIT');
    expect(r.body.meta).toMatchObject({
      credits: 0,
      cached: true,
      cache_key: 'addr:2435 aspen rd #104, ames, ia 50010',
    });
    expect(r.body.data.zpid).toBe('114303858');
  });
});

describe('address_ambiguous', () => {
  const WRONG_UNIT = '2435 Aspen Rd Unit 999, Ames, IA 50010';

  it('names the candidate and what differed', async () => {
    const before = (await usage()).used;
    const r = await svc.get(`/v1/portal/property?${q({ address: WRONG_UNIT })}`);
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('address_ambiguous');
    expect(r.body.error.details.candidate.detailUrl).toMatch(
      /^https:\/\/www\.zillow\.com\/homedetails\/.*114303858_zpid\/$/,
    );
    expect(r.body.error.details.mismatch).toContain('unit');
    expect((await usage()).used).toBe(before);
  });

  it('is remembered for an hour: the same 409 with no upstream call', async () => {
    const before = svc.replay.requests.length;
    const first = await svc.get(`/v1/portal/property?${q({ address: WRONG_UNIT })}`);
    now = new Date(now.getTime() + 59 * 60_000);
    const again = await svc.get(`/v1/portal/property?${q({ address: '2435 ASPEN ROAD UNIT 999 AMES IA 50010' })}`);
    expect(first.status).toBe(409);
    expect(again.status).toBe(409);
    expect(again.body.error).toEqual(first.body.error);
    expect(svc.replay.requests.length).toBe(before);
  });

  it('after the hour the address is resolved again', async () => {
    const before = svc.replay.requests.length;
    now = new Date(now.getTime() + 2 * 60_000);
    const r = await svc.get(`/v1/portal/property?${q({ address: WRONG_UNIT })}`);
    expect(r.status).toBe(409);
    expect(svc.replay.requests.length).toBe(before + 1);
  });
});

describe('the 24 h cache', () => {
  it('a hit until 24 h after fetched_at, then a new billed live lookup', async () => {
    const first = await svc.get('/v1/portal/property?zpid=2146993218');
    const fetched = Date.parse(first.body.meta.fetched_at);
    const usedBefore = (await usage()).used;
    now = new Date(fetched + 24 * 3600_000 - 60_000);
    expect((await svc.get('/v1/portal/property?zpid=2146993218')).headers.get('x-cache')).toBe('HIT');
    now = new Date(fetched + 24 * 3600_000 + 60_000);
    const fresh = await svc.get('/v1/portal/property?zpid=2146993218');
    expect(fresh.headers.get('x-cache')).toBe('MISS');
    expect(fresh.body.meta.credits).toBe(1);
    expect((await usage()).used).toBe(usedBefore + 1);
  });
});

describe('not_found', () => {
  it('a zpid the site does not have: 404, not billed, not cached', async () => {
    const before = (await usage()).used;
    const a = await svc.get('/v1/portal/property?zpid=999999999');
    const b = await svc.get('/v1/portal/property?zpid=999999999');
    expect(a.status).toBe(404);
    expect(a.body.error.code).toBe('not_found');
    expect(b.status).toBe(404);
    expect(upstreamHits('999999999_zpid')).toBe(2);
    expect((await usage()).used).toBe(before);
  });
});

describe('an apartment-building link', () => {
  it('describes the building, priced from its lowest-priced available unit', async () => {
    const r = await svc.get(
      `/v1/portal/property?${q({ url: 'https://www.zillow.com/apartments/austin-tx/lenox-grand/CmB93F/' })}`,
    );
    expect(r.status).toBe(200);
    expect(r.body.data.price).toBeGreaterThan(0);
    expect(r.body.data.unit).toMatch(/\S/);
    expect(r.body.meta).toMatchObject({ credits: 1, cache_key: 'bldg:CmB93F' });
    const again = await svc.get(
      `/v1/portal/property?${q({ url: 'https://www.zillow.com/apartments/austin-tx/lenox-grand/CmB93F/' })}`,
    );
    expect(again.headers.get('x-cache')).toBe('HIT');
  });
});
