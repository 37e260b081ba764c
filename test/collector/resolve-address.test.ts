// Address → home through the replay server's suggestion endpoint (the site's JSON shape).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkAddress } from '../../src/address/index.js';
import { PagePool } from '../../src/collector/page-pool.js';
import { SelfHostedCollector } from '../../src/collector/self-hosted.js';
import { SiteClient } from '../../src/collector/site/client.js';
import type { AddressQuery, ReadContext } from '../../src/collector/types.js';
import type { Catalog } from '../../src/replay/catalog.js';
import { compiledModule } from '../helpers/compiled-src.js';
import { failure } from '../helpers/lookup-error.js';
import { useReplayServer } from '../helpers/replay.js';

const WALL = readFileSync(
  new URL('../../fixtures/portal/blocked-press-and-hold-2025-04.html', import.meta.url),
  'utf8',
);

type Addr = NonNullable<Catalog[number]['address']>;
const home = (zpid: string, address: Addr): Catalog[number] => ({
  path: `/homedetails/${zpid}-test/${zpid}_zpid/`,
  status: 200,
  html: '<html></html>',
  zpid,
  address,
  label: 'synthetic',
  note: 'address entry for resolution only; the page is not read',
});
// Addresses of the recorded homes, plus synthetic neighbours to tell them apart from.
const CATALOG: Catalog = [
  home('15192198', {
    streetNumber: '661',
    streetName: 'Lakeview Ave',
    city: 'San Francisco',
    state: 'CA',
    zipCode: '94112',
  }),
  home('114303858', {
    streetNumber: '2435',
    streetName: 'Aspen Rd',
    unitNumber: '104',
    city: 'Ames',
    state: 'IA',
    zipCode: '50010',
  }),
  home('900000105', {
    streetNumber: '2435',
    streetName: 'Aspen Rd',
    unitNumber: '105',
    city: 'Ames',
    state: 'IA',
    zipCode: '50010',
  }),
  home('900000001', {
    streetNumber: '123',
    streetName: 'S Main St',
    city: 'Springfield',
    state: 'IL',
    zipCode: '62701',
  }),
  home('450233440', {
    streetNumber: '710',
    streetName: 'E Dean Keeton St',
    unitNumber: '111',
    city: 'Austin',
    state: 'TX',
    zipCode: '78705',
  }),
  // Same number and street on both sides of the town's north-south line.
  home('900000501', {
    streetNumber: '500',
    streetName: 'N Oak Ave',
    city: 'Springfield',
    state: 'IL',
    zipCode: '62701',
  }),
  home('900000502', {
    streetNumber: '500',
    streetName: 'S Oak Ave',
    city: 'Springfield',
    state: 'IL',
    zipCode: '62701',
  }),
  // A half-number lot listed before its neighbour, and two buildings with the same apartment number.
  home('900000041', {
    streetNumber: '40 1/2',
    streetName: 'Pine St',
    city: 'Springfield',
    state: 'IL',
    zipCode: '62701',
  }),
  home('900000040', { streetNumber: '40', streetName: 'Pine St', city: 'Springfield', state: 'IL', zipCode: '62701' }),
  home('900000712', {
    streetNumber: '7',
    streetName: 'Birch Ln',
    unitNumber: 'Bldg 1 Apt 2',
    city: 'Springfield',
    state: 'IL',
    zipCode: '62701',
  }),
  home('900000732', {
    streetNumber: '7',
    streetName: 'Birch Ln',
    unitNumber: 'Bldg 3 Apt 2',
    city: 'Springfield',
    state: 'IL',
    zipCode: '62701',
  }),
];

const replay = useReplayServer(CATALOG);

// Resolving never reads a page, so the page pool's workers are never started.
// The real page worker as this run compiled it (a thread under tsx's loader starts about 0.5 s slower).
const pages = new PagePool({ workers: 1, maxQueue: 1, worker: compiledModule('collector/page-worker.ts') });
const collector = () =>
  new SelfHostedCollector({
    origin: replay.current.origin,
    suggestUrl: replay.current.suggestUrl,
    client: new SiteClient({ budgetMs: 5_000 }),
    pages,
    clock: () => new Date(),
  });
const ctx = (): ReadContext => ({ signal: new AbortController().signal, now: new Date() });
const address = (line: string): AddressQuery => {
  const c = checkAddress(line);
  if (!c.ok) throw new Error(c.reason);
  return { input: line, normalized: c.normalized, parts: c.parts };
};
const resolve = (line: string) => collector().resolveAddress(address(line), ctx());

async function ambiguous(line: string) {
  const e = await failure(resolve(line));
  expect(e.code).toBe('address_ambiguous');
  expect(e.status).toBe(409);
  return e.details as { candidate: { detailUrl: string; address: string; zpid: string }; mismatch: string[] };
}

describe('resolveAddress', () => {
  it('finds a single home and asks the endpoint the way the site does', async () => {
    expect(await resolve('661 Lakeview Avenue, San Francisco, CA 94112')).toEqual({
      zpid: '15192198',
      path: '/homedetails/15192198_zpid/',
    });
    expect(replay.current.requests).toHaveLength(1);
    const asked = new URL(replay.current.requests[0]!.path, replay.current.origin);
    expect(asked.pathname).toBe('/autocomplete/v3/suggestions');
    expect(Object.fromEntries(asked.searchParams)).toMatchObject({
      q: '661 Lakeview Avenue, San Francisco, CA 94112',
      resultTypes: 'allAddress',
      resultCount: '5',
      clientId: expect.any(String),
    });
  });

  it('accepts ZIP+4, a missing ZIP and spelled-out words', async () => {
    expect((await resolve('661 Lakeview Ave, San Francisco, CA 94112-1234')).zpid).toBe('15192198');
    expect((await resolve('661 Lakeview Ave, San Francisco, CA')).zpid).toBe('15192198');
    expect((await resolve('710 East Dean Keeton Street Apt 111, Austin, TX 78705')).zpid).toBe('450233440');
  });

  it('a state and ZIP without a city: finds the home (no city mismatch, the ZIP is kept)', async () => {
    expect((await resolve('661 Lakeview Ave, CA 94112')).zpid).toBe('15192198');
    expect((await resolve('2435 Aspen Rd #104, IA 50010')).zpid).toBe('114303858');
  });

  it('an address without the directional, where the street has N and S: 409 asking for it', async () => {
    const d = await ambiguous('500 Oak Ave, Springfield, IL 62701');
    expect(d.mismatch).toEqual(['directional']);
    expect(d.candidate.zpid).toBe('900000501');
    expect((await resolve('500 S Oak Ave, Springfield, IL 62701')).zpid).toBe('900000502');
    expect((await resolve('500 North Oak Avenue, Springfield, IL')).zpid).toBe('900000501');
  });

  it('tells a half number from the whole one', async () => {
    expect((await resolve('40 Pine St, Springfield, IL 62701')).zpid).toBe('900000040');
    expect((await resolve('40 1/2 Pine St, Springfield, IL 62701')).zpid).toBe('900000041');
  });

  it('finds the apartment in the right building', async () => {
    expect((await resolve('7 Birch Ln Bldg 3 Apt 2, Springfield, IL 62701')).zpid).toBe('900000732');
    expect((await resolve('7 Birch Ln Building 1 #2, Springfield, IL 62701')).zpid).toBe('900000712');
    expect((await ambiguous('7 Birch Ln Apt 2, Springfield, IL 62701')).mismatch).toEqual(['unit']);
  });

  it('finds the right unit of a condo building', async () => {
    expect((await resolve('2435 Aspen Rd #105, Ames, IA 50010')).zpid).toBe('900000105');
    expect((await resolve('2435 Aspen Road Unit 104, Ames, IA 50010')).zpid).toBe('114303858');
  });

  it('N is not S: 409 with the candidate link and the differing part', async () => {
    expect(await ambiguous('123 N Main St, Springfield, IL 62701')).toEqual({
      candidate: {
        detailUrl: 'https://www.zillow.com/homedetails/900000001_zpid/',
        address: '123 S Main St, Springfield, IL 62701',
        zpid: '900000001',
      },
      mismatch: ['directional'],
    });
  });

  it('an address without unit where the site only knows units → 409 on the unit', async () => {
    const d = await ambiguous('2435 Aspen Rd, Ames, IA 50010');
    expect(d.mismatch).toEqual(['unit']);
    expect(d.candidate.zpid).toBe('114303858');
  });

  it('a unit the site does not have → 409 on the unit', async () => {
    expect((await ambiguous('2435 Aspen Rd Unit 999, Ames, IA 50010')).mismatch).toEqual(['unit']);
  });

  it('another ZIP, city or state → 409 naming it', async () => {
    expect((await ambiguous('661 Lakeview Ave, San Francisco, CA 94110')).mismatch).toEqual(['zip']);
    expect((await ambiguous('661 Lakeview Ave, Daly City, CA 94112')).mismatch).toEqual(['city']);
    expect((await ambiguous('661 Lakeview Ave, San Francisco, NV 94112')).mismatch).toEqual(['state']);
  });

  it('another house number on the same street → 409 on the number', async () => {
    const d = await ambiguous('663 Lakeview Ave, San Francisco, CA 94112');
    expect(d.mismatch).toEqual(['number']);
    expect(d.candidate.detailUrl).toBe('https://www.zillow.com/homedetails/15192198_zpid/');
  });

  it('nothing near → 404 not_found with a reason', async () => {
    const e = await failure(resolve('1 Nowhere Rd, Nowhere, KS 67001'));
    expect(e.code).toBe('not_found');
    expect(e.details).toEqual({ reason: 'no_address_match' });
  });

  it('only region rows → 404 not_found', async () => {
    replay.current.faults.set('/autocomplete/v3/suggestions', {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        results: [
          {
            display: 'Ames, IA',
            resultType: 'Region',
            metaData: { regionId: 1, regionType: 'city', city: 'Ames', state: 'IA' },
          },
        ],
      }),
    });
    expect((await failure(resolve('2435 Aspen Rd, Ames, IA 50010'))).code).toBe('not_found');
  });

  it('a captcha page instead of JSON → upstream_blocked, as 200 and as 403', async () => {
    for (const status of [200, 403]) {
      replay.current.faults.set('/autocomplete/v3/suggestions', {
        status,
        headers: { 'content-type': 'text/html' },
        body: WALL,
      });
      expect((await failure(resolve('661 Lakeview Ave, San Francisco, CA 94112'))).code).toBe('upstream_blocked');
    }
  });

  it('JSON of another shape → upstream_bad_response', async () => {
    replay.current.faults.set('/autocomplete/v3/suggestions', {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: '{"data":[]}',
    });
    const e = await failure(resolve('661 Lakeview Ave, San Francisco, CA 94112'));
    expect(e.code).toBe('upstream_bad_response');
  });
});
