// meta.match (issue 10 §7) end to end, REST and GraphQL, against the replay
// site: an exact address, the same home written otherwise (resolved again, served from the zpid's
// entry), a spelling that hits an earlier address's alias (its own match, recomputed), and none for
// zpid lookups.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PropertyResponse } from '../../src/contract/index.js';
import { PropertyDocument } from '../../src/graphql/operations/generated/graphql.js';
import { SUGGEST_PATH } from '../../src/replay/server.js';
import { gql } from '../graphql/client.js';
import { expectSchema } from '../helpers/schema.js';
import { q, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

const reads = (needle: string) => svc.replay.requests.filter((r) => r.path.includes(needle)).length;
const byAddress = (address: string) => svc.get(`/v1/portal/property?${q({ address })}`);

describe('REST: meta.match on address lookups', () => {
  const EXACT = '661 Lakeview Ave, San Francisco, CA 94112';

  it('an exact address: confidence 1, no differences, read live', async () => {
    const r = await byAddress(EXACT);
    expect(r.status).toBe(200);
    expectSchema(PropertyResponse, r.body);
    expect(r.body.meta).toMatchObject({ credits: 1, cached: false });
    expect(r.body.meta.match).toEqual({
      input: EXACT,
      normalized: '661 lakeview ave, san francisco, ca 94112',
      matched_address: '661 Lakeview Ave, San Francisco, CA 94112',
      confidence: 1,
      differences: [],
    });
  });

  it('the same home as Avenue and without ZIP: resolved again to the same zpid, served from its entry, with what differs', async () => {
    const suggestions = reads(SUGGEST_PATH);
    const r = await byAddress('661 Lakeview Avenue, San Francisco, CA');
    expect(r.status).toBe(200);
    expect(r.body.data.zpid).toBe('15192198');
    expect(r.body.meta).toMatchObject({
      credits: 0,
      cached: true,
      cache_key: 'addr:661 lakeview ave, san francisco, ca',
    });
    expect(reads(SUGGEST_PATH)).toBe(suggestions + 1);
    expect(r.body.meta.match).toEqual({
      input: '661 Lakeview Avenue, San Francisco, CA',
      normalized: '661 lakeview ave, san francisco, ca',
      matched_address: '661 Lakeview Ave, San Francisco, CA 94112',
      confidence: 0.93,
      differences: [
        { field: 'street_type', kind: 'spelling', input: 'Avenue', matched: 'Ave' },
        { field: 'zipcode', kind: 'missing_in_input', input: null, matched: '94112' },
      ],
    });
  });

  it('a spelling that normalizes like the first hits its alias (no resolution) and still reports its own match', async () => {
    const suggestions = reads(SUGGEST_PATH);
    const input = '661 LAKEVIEW AVENUE  San Francisco CA 94112-1234';
    const r = await byAddress(input);
    expect(r.headers.get('x-cache')).toBe('HIT');
    expect(r.body.meta).toMatchObject({
      credits: 0,
      cached: true,
      cache_key: 'addr:661 lakeview ave, san francisco, ca 94112',
    });
    expect(reads(SUGGEST_PATH)).toBe(suggestions);
    expect(r.body.meta.match).toEqual({
      input,
      normalized: '661 lakeview ave, san francisco, ca 94112',
      matched_address: '661 Lakeview Ave, San Francisco, CA 94112',
      confidence: 0.98,
      differences: [{ field: 'street_type', kind: 'spelling', input: 'AVENUE', matched: 'Ave' }],
    });
  });

  it('a unit written with # where the site writes APT: a unit_designator spelling', async () => {
    const r = await byAddress('6851 Roswell Rd #O31, Sandy Springs, GA 30328');
    expect(r.status).toBe(200);
    expect(r.body.data.zpid).toBe('2146993218');
    expect(r.body.meta.match).toMatchObject({
      matched_address: '6851 Roswell Rd APT O31, Sandy Springs, GA 30328',
      confidence: 0.98,
      differences: [{ field: 'unit_designator', kind: 'spelling', input: '#', matched: 'APT' }],
    });
  });

  it('zpid and link lookups have no match, an address item of a batch has its own', async () => {
    const one = await svc.get('/v1/portal/property?zpid=15192198');
    expect(one.body.meta.cached).toBe(true);
    expect(one.body.meta).not.toHaveProperty('match');
    const link = await svc.get(
      `/v1/portal/property?${q({ url: 'https://www.zillow.com/homedetails/661-Lakeview-Ave-San-Francisco-CA-94112/15192198_zpid/' })}`,
    );
    expect(link.body.meta.cached).toBe(true);
    expect(link.body.meta).not.toHaveProperty('match');
    const batch = await svc.post('/v1/portal/batch', {
      items: [{ address: '661 Lakeview Ave, San Francisco, California 94112' }, { zpid: '15192198' }],
    });
    expect(batch.status).toBe(200);
    expect(batch.body.data[0].meta.match).toMatchObject({
      confidence: 0.98,
      differences: [{ field: 'state', kind: 'spelling', input: 'California', matched: 'CA' }],
    });
    expect(batch.body.data[1].meta).not.toHaveProperty('match');
  });
});

describe('GraphQL: meta.match', () => {
  const lookup = async (vars: { address?: string; zpid?: string }) => {
    const { property } = await gql(svc).request(PropertyDocument, vars);
    if (property.__typename !== 'PropertyLookup') throw new Error(`not found: ${JSON.stringify(property)}`);
    return property;
  };

  it('an exact address: confidence 1, no differences', async () => {
    const p = await lookup({ address: '55 Legacy Fixture St, Denver, CO 80205' });
    expect(p.meta).toMatchObject({ credits: 1, cached: false });
    expect(p.meta.match).toEqual({
      input: '55 Legacy Fixture St, Denver, CO 80205',
      normalized: '55 legacy fixture st, denver, co 80205',
      matchedAddress: '55 Legacy Fixture St, Denver, CO 80205',
      confidence: 1,
      differences: [],
    });
  });

  it('Street for St and no ZIP: the same zpid, the differences (enum values), confidence below 1', async () => {
    const p = await lookup({ address: '55 Legacy Fixture Street, Denver, CO' });
    expect(p.data.zpid).toBe('999000105');
    expect(p.meta).toMatchObject({ credits: 0, cached: true });
    expect(p.meta.match).toMatchObject({
      confidence: 0.93,
      differences: [
        { field: 'STREET_TYPE', kind: 'SPELLING', input: 'Street', matched: 'St' },
        { field: 'ZIPCODE', kind: 'MISSING_IN_INPUT', input: null, matched: '80205' },
      ],
    });
  });

  it('a cached alias hit reports the match of the spelling given', async () => {
    const p = await lookup({ address: '55 legacy fixture STREET, denver, co 80205' });
    expect(p.meta).toMatchObject({ cached: true, cacheKey: 'addr:55 legacy fixture st, denver, co 80205' });
    expect(p.meta.match).toMatchObject({
      input: '55 legacy fixture STREET, denver, co 80205',
      confidence: 0.98,
      differences: [{ field: 'STREET_TYPE', kind: 'SPELLING', input: 'STREET', matched: 'St' }],
    });
  });

  it('a zpid lookup: match is null', async () => {
    const p = await lookup({ zpid: '999000105' });
    expect(p.meta.cached).toBe(true);
    expect(p.meta.match).toBeNull();
  });
});
