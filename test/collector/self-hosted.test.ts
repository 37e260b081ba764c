// The own collector over real loopback HTTP, reading the real recorded pages through the replay server.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { PagePool } from '../../src/collector/page-pool.js';
import { SelfHostedCollector } from '../../src/collector/self-hosted.js';
import { SiteClient, type SiteClientOptions } from '../../src/collector/site/client.js';
import type { ReadContext, ReadTarget } from '../../src/collector/types.js';
import { loadCatalog, type Catalog } from '../../src/replay/catalog.js';
import { startReplayServer } from '../../src/replay/server.js';
import { compiledModule } from '../helpers/compiled-src.js';
import { failure } from '../helpers/lookup-error.js';
import { useReplayServer } from '../helpers/replay.js';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/portal/${name}`, import.meta.url), 'utf8');
const HOME = fixture('hdp-2146993218-condo-for-sale-2024.html');
const WALLS = ['blocked-press-and-hold-2025-04.html', 'blocked-press-and-hold-2025-03-reserialized.html'].map(fixture);

const HOME_PATH = '/homedetails/6851-Roswell-Rd-APT-O31-Sandy-Springs-GA-30328/2146993218_zpid/';
const NOW = new Date('2026-10-10T12:00:00.000Z');
const CATALOG: Catalog = [
  { path: HOME_PATH, status: 200, html: HOME, zpid: '2146993218', address: null, label: 'real' },
  {
    path: '/homedetails/wall-403/1_zpid/',
    status: 403,
    html: WALLS[0]!,
    zpid: null,
    address: null,
    label: 'real',
    note: 'bot wall as 403',
  },
  {
    path: '/homedetails/wall-200/2_zpid/',
    status: 200,
    html: WALLS[1]!,
    zpid: null,
    address: null,
    label: 'real',
    note: 'bot wall as 200',
  },
  {
    path: '/homedetails/empty/3_zpid/',
    status: 200,
    html: '<html><head><title>x</title></head><body>hi</body></html>',
    zpid: null,
    address: null,
    label: 'synthetic',
    note: 'page without data',
  },
  {
    path: '/homes/for_sale/',
    status: 200,
    html: '<html><body>search</body></html>',
    zpid: null,
    address: null,
    label: 'synthetic',
    note: 'search page',
  },
];

const replay = useReplayServer(CATALOG);
// The real page worker as this run compiled it (a thread under tsx's loader starts about 0.5 s slower).
const pages = new PagePool({ workers: 2, maxQueue: 16, worker: compiledModule('collector/page-worker.ts') });
afterAll(() => pages.close());

const collector = (opts: Partial<SiteClientOptions> = {}, origin = replay.current.origin) =>
  new SelfHostedCollector({
    origin,
    suggestUrl: replay.current.suggestUrl,
    client: new SiteClient({ budgetMs: 5_000, ...opts }),
    pages,
    clock: () => NOW,
  });
const ctx = (signal = new AbortController().signal): ReadContext => ({ signal, now: NOW });
const home = (zpid: string, path = `/homedetails/${zpid}_zpid/`): ReadTarget => ({ path, zpid, building: false });

describe('SelfHostedCollector.read', () => {
  it('reads the real 2024 condo page through the zpid-only link, like the site', async () => {
    const got = await collector().read(home('2146993218'), ctx());
    expect(replay.current.requests.map((r) => r.path)).toEqual(['/homedetails/2146993218_zpid/', HOME_PATH]);
    expect(got.zpid).toBe('2146993218');
    expect(got.source).toMatchObject({ provider: 'self_hosted', note: expect.any(String) });
    expect(got.property).toMatchObject({
      zpid: '2146993218',
      city: 'Sandy Springs',
      state: 'GA',
      zipcode: '30328',
      homeStatus: 'FOR_SALE',
      monthlyHoaFee: 486,
      scrapedAt: NOW.toISOString(),
    });
    expect(JSON.parse(got.rawJson!).zpid).toBe(2146993218);
  });

  it('returns the zpid of the page actually served when it differs from the one asked', async () => {
    replay.current.faults.set('/homedetails/55555_zpid/', { status: 200, body: HOME });
    const got = await collector().read(home('55555'), ctx());
    expect(got.zpid).toBe('2146993218');
  });

  it('reports the real bot wall as upstream_blocked, as 403 and as 200', async () => {
    const e403 = await failure(collector().read(home('1', '/homedetails/wall-403/1_zpid/'), ctx()));
    expect(e403.code).toBe('upstream_blocked');
    expect(e403.details).toEqual({ reason: 'bot_wall', status: 403 });
    const e200 = await failure(collector().read(home('2', '/homedetails/wall-200/2_zpid/'), ctx()));
    expect(e200.code).toBe('upstream_blocked');
    expect(e200.details).toEqual({ reason: 'bot_wall', status: 200 });
  });

  it('reports a page without listing data as upstream_bad_response', async () => {
    const e = await failure(collector().read(home('3', '/homedetails/empty/3_zpid/'), ctx()));
    expect(e.code).toBe('upstream_bad_response');
  });

  it('reports a redirect to a search page as not_found', async () => {
    replay.current.faults.set('/homedetails/4_zpid/', { status: 302, headers: { location: '/homes/for_sale/' } });
    const e = await failure(collector().read(home('4'), ctx()));
    expect(e.code).toBe('not_found');
    expect(e.details).toEqual({ reason: 'redirected_to_search' });
  });

  it('reports a missing page as not_found', async () => {
    const e = await failure(collector().read(home('77'), ctx()));
    expect(e.code).toBe('not_found');
    expect(e.details).toMatchObject({ reason: 'page_not_found' });
  });

  it('refuses a redirect off the site and never follows it', async () => {
    const elsewhere = await startReplayServer({ catalog: CATALOG });
    try {
      replay.current.faults.set('/homedetails/5_zpid/', {
        status: 301,
        headers: { location: `${elsewhere.origin}${HOME_PATH}` },
      });
      const e = await failure(collector().read(home('5'), ctx()));
      expect(e.code).toBe('upstream_bad_response');
      expect(e.details).toMatchObject({ reason: 'offsite_redirect' });
      expect(elsewhere.requests).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });

  it('times out on a slow site', async () => {
    replay.current.faults.set(HOME_PATH, { delayMs: 1_000 });
    const e = await failure(collector({ budgetMs: 200 }).read(home('2146993218', HOME_PATH), ctx()));
    expect(e.code).toBe('upstream_timeout');
    expect(e.details).toMatchObject({ reason: 'timeout' });
  });

  it('stops mid-read when the signal aborts', async () => {
    // A path of its own: a request another test's read sent late (impit sends it even after its caller left) is not counted.
    const path = `${HOME_PATH}?read=aborted`;
    replay.current.faults.set(path, { dripMs: 20, dripBytes: 16_384 });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 150);
    const e = await failure(collector().read(home('2146993218', path), ctx(ac.signal)));
    expect(e.code).toBe('upstream_timeout');
    expect(e.details).toEqual({ reason: 'aborted' });
    expect(replay.current.requests.filter((r) => r.path === path)).toHaveLength(1);
  });
});

describe('SelfHostedCollector with the default replay catalog', () => {
  it('reads every recorded home and building page the catalog holds, with no request leaving loopback', async () => {
    const catalog = loadCatalog();
    // Walls and malformed pages carry a note; every other page must read.
    const pages = catalog.filter((e) => e.status === 200 && !e.note);
    expect(pages.length).toBeGreaterThan(0);
    const full = await startReplayServer({ catalog });
    try {
      const c = collector({}, full.origin);
      for (const entry of pages) {
        const building = /^\/(apartments|b)\//.test(entry.path);
        const got = await c.read({ path: entry.path, zpid: building ? null : entry.zpid, building }, ctx());
        expect(got.property.scrapedAt).toBe(NOW.toISOString());
        expect(got.zpid).toBe(entry.zpid);
      }
      expect(full.requests.length).toBe(pages.length);
    } finally {
      await full.close();
    }
  });
});
