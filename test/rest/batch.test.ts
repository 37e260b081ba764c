// POST /v1/portal/batch: one result per item in order, duplicates read and billed once, meta counts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchResponse } from '../../src/contract/index.js';
import { expectSchema } from '../helpers/schema.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

const HOME = 'https://www.zillow.com/homedetails/6851-Roswell-Rd-APT-O31-Sandy-Springs-GA-30328/2146993218_zpid/';
// Page reads of a home; a zpid-only link is first redirected to the slugged page, like on the site.
const upstreamHits = (needle: string) =>
  svc.replay.requests.filter((r) => r.path.includes(needle) && !/^\/homedetails\/\d+_zpid\/$/.test(r.path)).length;

describe('a mixed batch', () => {
  let body: any;

  beforeAll(async () => {
    const r = await svc.post('/v1/portal/batch', {
      items: [
        HOME,
        { zpid: '2146993218' },
        { url: 'https://www.zillow.com/homedetails/2146993218_zpid/' },
        '2435 Aspen Rd Unit 104, Ames, IA 50010',
        { zpid: '114303858' },
        { address: '661 Lakeview Ave, San Francisco, CA 94112' },
        { zpid: '999999999' },
        { zpid: 'nope' },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-api-version')).toBe('v1');
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('x-cache')).toBeNull();
    body = r.body;
  });

  it('matches the schema and keeps item order', () => {
    expectSchema(BatchResponse, body);
    expect(body.data.map((d: any) => d.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(body.data.map((d: any) => d.ok)).toEqual([true, true, true, true, true, true, false, false]);
    expect(body.data[6].error.code).toBe('not_found');
    expect(body.data[7].error.code).toBe('bad_param');
  });

  it('reads each home once and bills each once', () => {
    expect(upstreamHits('2146993218_zpid')).toBe(1);
    expect(upstreamHits('114303858_zpid')).toBe(1);
    expect(upstreamHits('15192198_zpid')).toBe(1);
    const credits = body.data.filter((d: any) => d.ok).map((d: any) => d.meta.credits);
    expect(credits.reduce((a: number, b: number) => a + b, 0)).toBe(3);
    expect(body.meta.credits).toBe(3);
  });

  it('duplicates carry the same data, as hits', () => {
    expect(body.data[1].data).toEqual(body.data[0].data);
    expect(body.data[2].data).toEqual(body.data[0].data);
    expect(body.data[3].data).toEqual(body.data[4].data);
    expect(body.data[0].meta.credits + body.data[1].meta.credits + body.data[2].meta.credits).toBe(1);
  });

  it('has the spec meta', () => {
    expect(body.meta).toMatchObject({ count: 8, succeeded: 6, failed: 2, credits: 3 });
    expect(body.meta.cache_hits).toBe(3);
    expect(Number.isInteger(body.meta.took_ms)).toBe(true);
  });

  it('the account is charged what meta says', async () => {
    const r = await svc.get('/v1/account');
    expect(r.body.data.used).toBe(3);
  });

  it('a second batch of the same homes is all hits and free', async () => {
    const r = await svc.post('/v1/portal/batch', { items: [HOME, { zpid: '114303858' }], raw: true });
    expect(r.body.meta).toMatchObject({ count: 2, succeeded: 2, cache_hits: 2, credits: 0 });
    expect(r.body.data[0].data.raw).toBeTypeOf('object');
  });
});
