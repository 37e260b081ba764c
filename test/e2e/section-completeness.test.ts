// Section completeness end to end (issue 10 §3; docs/sections.md), through the service's routes:
// the replay site serves a home's page with one section broken (its shape is not one the mapper
// reads), the service answers with meta.sections saying so, REST and GraphQL alike, caches the record
// only for INCOMPLETE_TTL_MS (the service clock is moved past it, no sleeping) and bills it only
// when its core fields are there, as the ledger shows.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SECTION_NAMES, type Sections } from '../../src/contract/sections.js';
import { loadCatalog } from '../../src/replay/catalog.js';
import { wrapPropertyPage } from '../../src/replay/wrap.js';
import { hashApiKey, seededAccountId } from '../../src/accounts/index.js';
import { startFakeActorPlatform, type FakeActorPlatform } from '../fakes/fake-actor-platform.js';
import { recordedHome, todaysShape } from '../helpers/fallback-items.js';
import { startTestService, type TestService } from '../helpers/service.js';

type Json = Record<string, unknown>;
const INCOMPLETE_TTL_MS = 600_000;
const fixture = (name: string): Json =>
  JSON.parse(readFileSync(new URL(`../../fixtures/portal/${name}`, import.meta.url), 'utf8')) as Json;

/** Where the replay site serves home `zpid`'s page (after its redirect from the zpid link). */
const pagePath = (zpid: string): string => loadCatalog().find((e) => e.zpid === zpid && e.status === 200)!.path;

const present = (others: Partial<Sections> = {}): Sections =>
  ({ ...Object.fromEntries(SECTION_NAMES.map((n) => [n, 'present'])), ...others }) as Sections;

let svc: TestService;
let now = new Date('2026-10-09T12:00:00.000Z');
const advance = (ms: number) => {
  now = new Date(now.getTime() + ms);
};

beforeAll(async () => {
  svc = await startTestService({ clock: () => now, env: { INCOMPLETE_TTL_MS: String(INCOMPLETE_TTL_MS) } });
});
afterAll(() => svc?.close());
beforeEach(() => {
  svc.replay.faults.clear();
  // Past every lifetime, so each test starts with nothing cached.
  advance(40 * 24 * 3600_000);
});

const pageReads = (path: string) => svc.replay.requests.filter((r) => r.path === path).length;
const ledgerOf = async (key: string) =>
  (await svc.store.ledger(seededAccountId(hashApiKey(key, svc.config.apiKeySecret)))).map((e) => e.cacheKey);
const lookup = (zpid: string) => svc.get(`/v1/portal/property?zpid=${zpid}`);

describe('a section the page holds in a shape the mapper cannot read', () => {
  const zpid = '15192198';
  const brokenPage = () => {
    const property = fixture('property-15192198-for-sale-2023.json');
    // The price events as an object keyed by date: a shape no generation we read has.
    property.priceHistory = Object.fromEntries((property.priceHistory as Json[]).map((e) => [String(e.date), e]));
    return wrapPropertyPage(property);
  };

  it('REST: answered with extraction_failed, billed (core fields there), a free hit until INCOMPLETE_TTL_MS, then read again', async () => {
    const path = pagePath(zpid);
    svc.replay.faults.set(path, { body: brokenPage() });
    const ledgerBefore = await ledgerOf(svc.keys.free!);
    const readsBefore = pageReads(path);

    const first = await lookup(zpid);
    expect(first.status).toBe(200);
    expect(first.body.meta).toMatchObject({
      credits: 1,
      cached: false,
      sections: present({ priceHistory: 'extraction_failed' }),
    });
    expect(first.body.data).toMatchObject({ zpid, price: 850000, priceHistory: [] });
    expect(await ledgerOf(svc.keys.free!)).toEqual([...ledgerBefore, `zpid:${zpid}`]);

    // Within INCOMPLETE_TTL_MS: a hit, free, reporting the same sections; the site is not asked.
    advance(INCOMPLETE_TTL_MS - 1000);
    const hit = await lookup(zpid);
    expect(hit.body.meta).toMatchObject({
      credits: 0,
      cached: true,
      sections: present({ priceHistory: 'extraction_failed' }),
    });
    expect(pageReads(path)).toBe(readsBefore + 1);

    // Past it, the page is read again (it reads whole now), billed, and cached as complete.
    svc.replay.faults.delete(path);
    advance(1001);
    const again = await lookup(zpid);
    expect(again.body.meta).toMatchObject({ credits: 1, cached: false, sections: present() });
    expect(again.body.data.priceHistory).toHaveLength(4);
    expect(pageReads(path)).toBe(readsBefore + 2);
    expect(await ledgerOf(svc.keys.free!)).toEqual([...ledgerBefore, `zpid:${zpid}`, `zpid:${zpid}`]);

    // A complete record keeps the 24-hour lifetime: still a hit well past INCOMPLETE_TTL_MS.
    advance(3 * INCOMPLETE_TTL_MS);
    expect((await lookup(zpid)).body.meta).toMatchObject({ credits: 0, cached: true, sections: present() });
    expect(pageReads(path)).toBe(readsBefore + 2);
  });

  it('GraphQL: the same sections, camelCase keys and enum values', async () => {
    svc.replay.faults.set(pagePath(zpid), { body: brokenPage() });
    const query = `{ property(zpid: "${zpid}") { ... on PropertyLookup { meta { credits cached sections { photos priceHistory taxHistory schools agent broker estimate rentEstimate description } } } ... on LookupError { code } } }`;
    const r = await svc.post('/graphql', { query });
    expect(r.status).toBe(200);
    const upper = Object.fromEntries(
      Object.entries(present({ priceHistory: 'extraction_failed' })).map(([k, v]) => [k, v.toUpperCase()]),
    );
    expect(r.body.data.property.meta).toEqual({ credits: 1, cached: false, sections: upper });
    // REST, now a hit, reports the same.
    expect((await lookup(zpid)).body.meta).toMatchObject({
      cached: true,
      sections: present({ priceHistory: 'extraction_failed' }),
    });
  });
});

describe('a section that failed on a record without its core fields', () => {
  const zpid = '114303858';
  // Only the zpid, the link and the address: no price, no status; the tax years in a shape we cannot read.
  const page = () => {
    const p = fixture('property-114303858-sold-condo-2024.json').property as Json;
    return wrapPropertyPage({ zpid: p.zpid, hdpUrl: p.hdpUrl, address: p.address, taxHistory: 'see county records' });
  };

  it('is answered free and not cached: the next lookup reads the page again, and the ledger holds nothing', async () => {
    const path = pagePath(zpid);
    svc.replay.faults.set(path, { body: page() });
    const ledgerBefore = await ledgerOf(svc.keys.free!);
    const readsBefore = pageReads(path);
    const expected = {
      ...Object.fromEntries(SECTION_NAMES.map((n) => [n, 'not_found'])),
      taxHistory: 'extraction_failed',
    };

    const first = await lookup(zpid);
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({
      zpid,
      price: null,
      homeStatus: null,
      streetAddress: '2435 Aspen Rd UNIT 104',
    });
    expect(first.body.meta).toMatchObject({ credits: 0, cached: false, sections: expected });

    const second = await lookup(zpid);
    expect(second.body.meta).toMatchObject({ credits: 0, cached: false, sections: expected });
    expect(pageReads(path)).toBe(readsBefore + 2);
    expect(await ledgerOf(svc.keys.free!)).toEqual(ledgerBefore);
    expect((await svc.get('/v1/account')).body.data.used).toBe(ledgerBefore.length);
  });
});

describe("a home read by the fallback provider: the sections are the actor item's", () => {
  const WALL = readFileSync(
    new URL('../../fixtures/portal/blocked-press-and-hold-2025-04.html', import.meta.url),
    'utf8',
  );
  let platform: FakeActorPlatform;
  let walled: TestService;
  beforeAll(async () => {
    // 7521381 as the actor sends it today, with its price events as one text; 7528947 as recorded ("zestimate": null).
    const broken = { ...todaysShape(recordedHome(7521381)), listingPriceHistory: 'see the MLS' };
    platform = await startFakeActorPlatform({ homes: [broken, todaysShape(recordedHome(7528947))] });
    walled = await startTestService({
      clock: () => now,
      env: {
        INCOMPLETE_TTL_MS: String(INCOMPLETE_TTL_MS),
        FALLBACK_URL: platform.url,
        FALLBACK_TOKEN: platform.token,
        FALLBACK_ACTOR: platform.actor,
        LOOKUP_TIMEOUT_MS: '5000',
      },
    });
    for (const zpid of ['7521381', '7528947'])
      walled.replay.faults.set(`/homedetails/${zpid}_zpid/`, { status: 403, body: WALL });
  });
  afterAll(async () => {
    await walled?.close();
    await platform?.close();
  });

  it('a broken section in the item: extraction_failed, billed (core fields there), cached for INCOMPLETE_TTL_MS only', async () => {
    const first = await walled.get('/v1/portal/property?zpid=7521381');
    expect(first.status).toBe(200);
    expect(first.body.meta).toMatchObject({
      credits: 1,
      cached: false,
      source: { fallback_from: 'self_hosted' },
      sections: present({ priceHistory: 'extraction_failed' }),
    });
    expect((await walled.get('/v1/portal/property?zpid=7521381')).body.meta).toMatchObject({
      credits: 0,
      cached: true,
      sections: present({ priceHistory: 'extraction_failed' }),
    });
    advance(INCOMPLETE_TTL_MS + 1);
    expect((await walled.get('/v1/portal/property?zpid=7521381')).body.meta).toMatchObject({
      credits: 1,
      cached: false,
    });
    expect(platform.runs).toHaveLength(2);
  });

  it('a complete item: what it says is empty is not_published, and the record is cached as complete', async () => {
    const r = await walled.get('/v1/portal/property?zpid=7528947');
    expect(r.body.meta).toMatchObject({ credits: 1, sections: present({ estimate: 'not_published' }) });
    advance(INCOMPLETE_TTL_MS + 1);
    expect((await walled.get('/v1/portal/property?zpid=7528947')).body.meta).toMatchObject({
      credits: 0,
      cached: true,
      sections: present({ estimate: 'not_published' }),
    });
  });
});
