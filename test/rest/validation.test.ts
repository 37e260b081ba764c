// Spec 4.1 rules 1-3 and 4.2 rules 3-4: every invalid input is a 400 before any lookup, and free.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, q, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

const HOME = 'https://www.zillow.com/homedetails/6851-Roswell-Rd-APT-O31-Sandy-Springs-GA-30328/2146993218_zpid/';

describe('GET /v1/portal/property validation', () => {
  it('no locator → 400 missing_param', async () => {
    const r = await svc.get('/v1/portal/property');
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('missing_param');
  });

  it.each([
    ['two locators', { url: HOME, zpid: '2146993218' }],
    ['three locators', { url: HOME, zpid: '1', address: '1 Main St, Austin, TX' }],
    ['a link on another site', { url: 'https://example.com/homedetails/1_zpid/' }],
    ['a search link, not a property', { url: 'https://www.zillow.com/homes/for_sale/' }],
    ['a home link without _zpid', { url: 'https://www.zillow.com/homedetails/6851-Roswell-Rd/' }],
    ['not a link', { url: 'zillow.com/homedetails/1_zpid/' }],
    ['a link over 500 characters', { url: `https://www.zillow.com/homedetails/${'a'.repeat(480)}/2146993218_zpid/` }],
    ['a zpid with letters', { zpid: '12ab' }],
    ['a zpid of 13 digits', { zpid: '1234567890123' }],
    ['a zpid with spaces', { zpid: ' 2146993218' }],
    ['an empty zpid', { zpid: '' }],
    ['an address under 5 characters', { address: '1 Ma' }],
    ['an address over 200 characters', { address: `1 ${'Main '.repeat(45)}St, Austin, TX 78701` }],
    ['an address without a house number', { address: 'Main St, Austin, TX 78701' }],
    ['an address without city+state or ZIP', { address: '123 Main St' }],
    ['an address with a city but no state', { address: '123 Main St, Springfield' }],
    ['a bad status', { zpid: '2146993218', status: 'rented' }],
    ['a bad raw', { zpid: '2146993218', raw: 'yes' }],
    ['an unknown parameter', { zpid: '2146993218', adress: 'x' }],
  ])('%s → 400 bad_param', async (_name, params) => {
    const r = await svc.get(`/v1/portal/property?${q(params as Record<string, string>)}`);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('bad_param');
    expect(r.body.error.message).toMatch(/\S/);
    expect(r.body.error.details.param).toBeTypeOf('string');
  });

  it('a repeated parameter → 400 bad_param', async () => {
    const r = await svc.get('/v1/portal/property?zpid=1&zpid=2');
    expect(r.status).toBe(400);
    expect(r.body.error.details).toMatchObject({ param: 'zpid', reason: 'sent more than once' });
  });

  it('exactly 500 characters is accepted as a link (then looked up)', async () => {
    const base = 'https://www.zillow.com/homedetails/';
    const tail = '/2146993218_zpid/';
    const url = base + 'a'.repeat(500 - base.length - tail.length) + tail;
    expect(url.length).toBe(500);
    const r = await svc.get(`/v1/portal/property?${q({ url })}`);
    expect(r.status).not.toBe(400);
  });
});

describe('POST /v1/portal/batch validation', () => {
  it.each([
    ['not JSON', 'items: [1]'],
    ['an empty body', ''],
    ['a JSON array', '[]'],
    ['no items', '{}'],
    ['empty items', '{"items": []}'],
    ['items not an array', '{"items": "x"}'],
  ])('%s → 400 bad_body', async (_name, body) => {
    const r = await svc.post('/v1/portal/batch', body);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('bad_body');
  });

  it('51 items → 400 too_many_items', async () => {
    const r = await svc.post('/v1/portal/batch', {
      items: Array.from({ length: 51 }, (_, i) => ({ zpid: String(i + 1) })),
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'too_many_items', details: { max: 50, received: 51 } });
  });

  it('a bad status or raw for the batch → 400 bad_param (raw is a JSON boolean there)', async () => {
    expect((await svc.post('/v1/portal/batch', { items: ['x'], status: 'nope' })).body.error.code).toBe('bad_param');
    expect((await svc.post('/v1/portal/batch', { items: ['x'], raw: 'maybe' })).body.error.code).toBe('bad_param');
    expect((await svc.post('/v1/portal/batch', { items: ['x'], raw: 'true' })).body.error.code).toBe('bad_param');
  });

  it('a body over 1 MB → 400 bad_body', async () => {
    const r = await svc.post('/v1/portal/batch', JSON.stringify({ items: ['x'.repeat(1_100_000)] }));
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('bad_body');
  });

  it('invalid items fail on their own, in place, free', async () => {
    const r = await svc.post('/v1/portal/batch', {
      items: [
        { url: HOME, address: '6851 Roswell Rd, Sandy Springs, GA 30328' },
        { zpid: 'abc' },
        'https://example.com/x',
        42,
        { foo: 'bar' },
        'Main St only',
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.data.map((d: any) => [d.index, d.ok, d.error.code])).toEqual([
      [0, false, 'bad_param'],
      [1, false, 'bad_param'],
      [2, false, 'bad_param'],
      [3, false, 'bad_param'],
      [4, false, 'bad_param'],
      [5, false, 'bad_param'],
    ]);
    expect(r.body.meta).toMatchObject({ count: 6, succeeded: 0, failed: 6, cache_hits: 0, credits: 0 });
  });
});

describe('validation is free', () => {
  it('made no upstream request except the accepted 500-character link', () => {
    expect(svc.replay.requests.every((r) => r.path.includes('2146993218_zpid'))).toBe(true);
  });
});
