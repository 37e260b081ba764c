// The composition built by createCollector: own collector first, the provider when the site cannot be read.
import { readFileSync } from 'node:fs';
import { BroadcastChannel } from 'node:worker_threads';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  FallbackProvider,
  PagePool,
  SelfHostedCollector,
  SiteClient,
  createCollector,
} from '../../src/collector/index.js';
import type { AddressQuery, Collector, ReadContext, ReadTarget } from '../../src/collector/types.js';
import { WithFallback } from '../../src/collector/with-fallback.js';
import { loadConfig, type Config } from '../../src/config.js';
import { checkAddress } from '../../src/address/index.js';
import { LookupError } from '../../src/contract/index.js';
import type { Catalog } from '../../src/replay/catalog.js';
import { startReplayServer, type ReplayServer } from '../../src/replay/server.js';
import {
  PLATFORM_ERRORS,
  runStarts,
  startFakeActorPlatform,
  type FakeActorPlatform,
} from '../fakes/fake-actor-platform.js';
import { recordedWrongUnit, todaysShape } from '../helpers/fallback-items.js';
import { compiledModule, compiledTestModule } from '../helpers/compiled-src.js';
import { failure } from '../helpers/lookup-error.js';
import { GATE_CHANNEL } from './workers/gated-page-worker.js';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/portal/${name}`, import.meta.url), 'utf8');
const WALL = fixture('blocked-press-and-hold-2025-04.html');
const HOME = fixture('hdp-2146993218-condo-for-sale-2024.html');

const NOW = new Date('2026-03-01T12:00:00.000Z');
const LAKEVIEW = '/homedetails/661-Lakeview-Ave-San-Francisco-CA-94112/15192198_zpid/';
const ROSWELL = '/homedetails/6851-Roswell-Rd-APT-O31-Sandy-Springs-GA-30328/2146993218_zpid/';
const CATALOG: Catalog = [
  {
    path: LAKEVIEW,
    status: 403,
    html: WALL,
    zpid: '15192198',
    address: { streetNumber: '661', streetName: 'Lakeview Ave', city: 'San Francisco', state: 'CA', zipCode: '94112' },
    label: 'real',
    note: 'bot wall served for this home',
  },
  { path: ROSWELL, status: 200, html: HOME, zpid: '2146993218', address: null, label: 'real' },
];

let site: ReplayServer;
let platform: FakeActorPlatform;
// One pool of page readers for the file's collectors (each would start its own threads), running the
// page worker as this run compiled it (a thread under tsx's loader starts about 0.5 s slower).
const pages = new PagePool({ workers: 2, maxQueue: 16, worker: compiledModule('collector/page-worker.ts') });
beforeAll(async () => {
  site = await startReplayServer({ catalog: CATALOG });
  platform = await startFakeActorPlatform();
});
afterAll(async () => {
  await pages.close();
  await site.close();
  await platform.close();
});
afterEach(() => {
  site.faults.clear();
  site.requests.length = 0;
  platform.reset();
});

const env = (over: Record<string, string> = {}) => ({
  PORTAL_ORIGIN: site.origin,
  PORTAL_SUGGEST_URL: site.suggestUrl,
  LOOKUP_TIMEOUT_MS: '5000',
  FALLBACK_URL: platform.url,
  FALLBACK_TOKEN: platform.token,
  FALLBACK_ACTOR: platform.actor,
  ...over,
});
const collector = (over: Record<string, string> = {}, drop: string[] = []): Collector => {
  const e: Record<string, string | undefined> = env(over);
  for (const k of drop) delete e[k];
  return createCollector(loadConfig(e), { clock: () => NOW, pages });
};
const NO_PROVIDER = ['FALLBACK_URL', 'FALLBACK_TOKEN', 'FALLBACK_ACTOR'];

const ctx = (): ReadContext => ({ signal: new AbortController().signal, now: NOW });
const target = (path: string, zpid: string): ReadTarget => ({ path, zpid, building: false });
const address = (line: string): AddressQuery => {
  const c = checkAddress(line);
  if (!c.ok) throw new Error(c.reason);
  return { input: line, normalized: c.normalized, parts: c.parts };
};

describe('createCollector: own collector with the provider as fallback', () => {
  it('reads with the own collector when it can, without touching the provider', async () => {
    const got = await collector().read(target(ROSWELL, '2146993218'), ctx());
    expect(got.source).toMatchObject({ provider: 'self_hosted' });
    expect(got.source.fallback_from).toBeUndefined();
    expect(runStarts(platform)).toHaveLength(0);
  });

  it('bot wall → the provider reads it; source says so', async () => {
    const got = await collector().read(target(LAKEVIEW, '15192198'), ctx());
    // The wall on the first session and on two fresh ones (PORTAL_SESSION_RETRIES), then the provider.
    expect(site.requests.map((r) => r.path)).toEqual([LAKEVIEW, LAKEVIEW, LAKEVIEW]);
    expect(runStarts(platform)).toHaveLength(1);
    expect(got.zpid).toBe('15192198');
    expect(got.property.zpid).toBe('15192198');
    expect(got.source).toEqual({
      provider: 'apify',
      note: expect.any(String),
      fallback_from: 'self_hosted',
      actor: platform.actor,
      run_id: platform.runs[0]!.id,
    });
  });

  it('the wall as 200 and an unreadable page also go to the provider', async () => {
    site.faults.set(LAKEVIEW, { status: 200 });
    expect((await collector().read(target(LAKEVIEW, '15192198'), ctx())).source.fallback_from).toBe('self_hosted');
    site.faults.set(LAKEVIEW, { status: 200, body: '<html><head><title>x</title></head><body></body></html>' });
    expect((await collector().read(target(LAKEVIEW, '15192198'), ctx())).source.fallback_from).toBe('self_hosted');
    expect(runStarts(platform)).toHaveLength(2);
  });

  it("answers about the home (not_found) and the site's own failures (5xx) do not start a paid run", async () => {
    expect((await failure(collector().read(target('/homedetails/404_zpid/', '404'), ctx()))).code).toBe('not_found');
    site.faults.set(ROSWELL, { status: 500 });
    expect((await failure(collector().read(target(ROSWELL, '2146993218'), ctx()))).code).toBe('upstream_error');
    expect(runStarts(platform)).toHaveLength(0);
  });

  it('a site that does not answer within the own budget → the provider, while the lookup has time left', async () => {
    site.faults.set(LAKEVIEW, { delayMs: 3_000 });
    const got = await collector({ PORTAL_SELF_HOSTED_BUDGET_MS: '300' }).read(target(LAKEVIEW, '15192198'), ctx());
    expect(got.source).toMatchObject({ provider: 'apify', fallback_from: 'self_hosted' });
    expect(runStarts(platform)).toHaveLength(1);
    // No time left of the lookup: the own failure is the answer, no paid run.
    const late = await failure(
      collector({ PORTAL_SELF_HOSTED_BUDGET_MS: '300' }).read(target(LAKEVIEW, '15192198'), {
        ...ctx(),
        deadlineAt: Date.now() + 500,
      }),
    );
    expect(late.code).toBe('upstream_timeout');
    expect(runStarts(platform)).toHaveLength(1);
  });

  it('the site rate-limiting us (429) → the provider, which reads from elsewhere', async () => {
    site.faults.set(LAKEVIEW, { status: 429, headers: { 'retry-after': '60' } });
    expect((await collector().read(target(LAKEVIEW, '15192198'), ctx())).source.fallback_from).toBe('self_hosted');
    const e = await failure(collector({}, NO_PROVIDER).read(target(LAKEVIEW, '15192198'), ctx()));
    expect(e.code).toBe('upstream_busy');
    expect(e.retryAfter).toBe(60);
  });

  it("the provider's own failure is what the caller gets", async () => {
    platform.refuse('start', PLATFORM_ERRORS.monthlyLimit);
    expect((await failure(collector().read(target(LAKEVIEW, '15192198'), ctx()))).code).toBe('upstream_quota');
  });

  it('no provider configured → the original upstream_blocked', async () => {
    const e = await failure(collector({}, NO_PROVIDER).read(target(LAKEVIEW, '15192198'), ctx()));
    expect(e.code).toBe('upstream_blocked');
    expect(e.details).toEqual({ reason: 'bot_wall', status: 403 });
    expect(platform.calls).toEqual([]);
  });

  // The environment schema refuses these at start-up (test/config/env-schema.test.ts); a Config built
  // another way still gets no runs from the collector.
  it('a half-configured provider, one without a positive cost cap, or a ceiling below the cap → upstream_misconfigured when it is needed', async () => {
    const withFallback = (patch: Partial<Config['fallback']>): Collector => {
      const config = loadConfig(env());
      return createCollector({ ...config, fallback: { ...config.fallback, ...patch } }, { clock: () => NOW, pages });
    };
    const configs = [
      withFallback({ token: null }),
      withFallback({ maxCostUsd: 0 }),
      withFallback({ maxCostUsd: Number.NaN }),
      withFallback({ maxCostCeilingUsd: 0.01 }),
    ];
    for (const c of configs) {
      const e = await failure(c.read(target(LAKEVIEW, '15192198'), ctx()));
      expect(e.code).toBe('upstream_misconfigured');
      expect(e.status).toBe(503);
    }
    expect(platform.calls).toEqual([]);
  });

  it('a blocked suggestion endpoint → the provider takes the address and returns the home it read', async () => {
    site.faults.set('/autocomplete/v3/suggestions', { status: 403, body: WALL });
    const r = await collector().resolveAddress(address('661 Lakeview Ave, San Francisco, CA 94112'), ctx());
    expect(r).toMatchObject({ zpid: '15192198', path: '/homedetails/15192198_zpid/' });
    expect(r.collected?.source).toMatchObject({ provider: 'apify', fallback_from: 'self_hosted' });
    expect(runStarts(platform)[0]!.input).toEqual({ addresses: ['661 Lakeview Ave, San Francisco, CA 94112'] });
  });

  it('an address the own resolver can answer does not use the provider', async () => {
    const r = await collector().resolveAddress(address('661 Lakeview Ave, San Francisco, CA 94112'), ctx());
    expect(r).toEqual({ zpid: '15192198', path: '/homedetails/15192198_zpid/' });
    expect(runStarts(platform)).toHaveLength(0);
  });

  it("a blocked suggestion endpoint and the actor's wrong unit → 409 address_ambiguous, as the own resolver would answer", async () => {
    site.faults.set('/autocomplete/v3/suggestions', { status: 403, body: WALL });
    platform.homes = [todaysShape(recordedWrongUnit())];
    const e = await failure(
      collector().resolveAddress(address('12222 N Paradise Village Pkwy #429, Phoenix, AZ 85032'), ctx()),
    );
    expect(e.code).toBe('address_ambiguous');
    expect(e.details).toMatchObject({ candidate: { zpid: '2053953599' }, mismatch: ['unit'] });
  });

  it('the lookup abandoned while the fallback run is going → the run is aborted', async () => {
    platform.holding = true;
    const ac = new AbortController();
    const reading = failure(collector().read(target(LAKEVIEW, '15192198'), { signal: ac.signal, now: NOW }));
    const run = await platform.nextWait();
    const aborted = platform.nextAbort();
    ac.abort();
    expect((await aborted).id).toBe(run.id);
    expect((await reading).code).toBe('upstream_timeout');
    expect(run.status).toBe('ABORTED');
  });

  it("at start-up the provider reads the actor's minimum cost cap, and its runs use it", async () => {
    platform.minimalMaxTotalChargeUsd = 0.3;
    const c = collector();
    await c.read(target(LAKEVIEW, '15192198'), ctx());
    expect(platform.calls[0]).toMatchObject({ method: 'GET', path: '/v2/acts/maxcopell~zillow-detail-scraper' });
    expect(platform.runs.map((r) => r.options.maxTotalChargeUsd)).toEqual([0.3]);
  });

  it('our own page readers all busy (upstream_busy page_readers_busy) → returned as it is, no paid run', async () => {
    // One page reader held at a gate and one page queued: the page finds the queue full.
    const channel = new BroadcastChannel(GATE_CHANNEL);
    const started = new Promise<void>((resolve) => {
      channel.onmessage = (m) => {
        if ((m as { data?: unknown }).data === 'started') resolve();
      };
    });
    const pages = new PagePool({
      workers: 1,
      maxQueue: 1,
      worker: compiledTestModule('collector/workers/gated-page-worker.ts'),
    });
    const task = {
      want: { zpid: '2146993218', building: false },
      scrapedAt: NOW.toISOString(),
      now: NOW.toISOString(),
    };
    const own = new SelfHostedCollector({
      origin: site.origin,
      suggestUrl: site.suggestUrl,
      client: new SiteClient({ budgetMs: 5_000 }),
      pages,
      clock: () => NOW,
    });
    const provider = new FallbackProvider({
      url: platform.url,
      token: platform.token,
      actor: platform.actor,
      maxCostUsd: 0.05,
      maxCostCeilingUsd: 0.5,
      name: 'apify',
      timeoutMs: 5_000,
      clock: () => NOW,
    });
    try {
      const reading = pages.read(Buffer.from(HOME), task);
      await started;
      const queued = pages.read(Buffer.from(HOME), task);
      const e = await failure(new WithFallback(own, provider).read(target(ROSWELL, '2146993218'), ctx()));
      expect(e.code).toBe('upstream_busy');
      expect(e.details).toMatchObject({ reason: 'page_readers_busy' });
      expect(site.requests.map((r) => r.path)).toEqual([ROSWELL]);
      expect(platform.calls).toEqual([]);
      channel.postMessage('open');
      await Promise.all([reading, queued]);
    } finally {
      channel.close();
      await pages.close();
    }
  });

  it('a cancelled lookup does not fall back', async () => {
    const ac = new AbortController();
    const own: Collector = {
      read: async () => {
        ac.abort();
        throw new LookupError('upstream_blocked');
      },
      resolveAddress: () => Promise.reject(new Error('unused')),
    };
    const provider: Collector = {
      read: () => Promise.reject(new Error('the provider must not be called')),
      resolveAddress: () => Promise.reject(new Error('unused')),
    };
    const e = await failure(
      new WithFallback(own, provider).read(target(LAKEVIEW, '15192198'), { signal: ac.signal, now: NOW }),
    );
    expect(e.code).toBe('upstream_blocked');
  });
});

describe('createCollector: other compositions', () => {
  it('own collector off → the provider alone, not marked as a fallback, the site untouched', async () => {
    const c = collector({ SELF_HOSTED_ENABLED: 'false' });
    const got = await c.read(target(LAKEVIEW, '15192198'), ctx());
    expect(got.source).toMatchObject({ provider: 'apify', run_id: platform.runs[0]!.id });
    expect(got.source.fallback_from).toBeUndefined();
    const r = await c.resolveAddress(address('661 Lakeview Ave, San Francisco, CA 94112'), ctx());
    expect(r.collected?.zpid).toBe('15192198');
    expect(site.requests).toEqual([]);
  });

  it('own collector off and no provider → no_api_keys, nothing called', async () => {
    const c = collector({ SELF_HOSTED_ENABLED: 'false' }, NO_PROVIDER);
    const e = await failure(c.read(target(LAKEVIEW, '15192198'), ctx()));
    expect(e.code).toBe('no_api_keys');
    expect(e.status).toBe(503);
    expect((await failure(c.resolveAddress(address('661 Lakeview Ave, San Francisco, CA 94112'), ctx()))).code).toBe(
      'no_api_keys',
    );
    expect(site.requests).toEqual([]);
    expect(platform.calls).toEqual([]);
  });

  it('LIVE_LOOKUPS_ENABLED=false → live_lookups_disabled, nothing called', async () => {
    const c = collector({ LIVE_LOOKUPS_ENABLED: 'false' });
    expect((await failure(c.read(target(ROSWELL, '2146993218'), ctx()))).code).toBe('live_lookups_disabled');
    expect((await failure(c.resolveAddress(address('661 Lakeview Ave, San Francisco, CA 94112'), ctx()))).code).toBe(
      'live_lookups_disabled',
    );
    expect(site.requests).toEqual([]);
    expect(platform.calls).toEqual([]);
  });
});

describe('our own overload never starts a paid run', () => {
  it('upstream_busy site_slots_busy (no slot at the site in time) is returned as it is', async () => {
    const own = {
      read: () =>
        Promise.reject(new LookupError('upstream_busy', { details: { reason: 'site_slots_busy' }, retryAfter: 1 })),
      resolveAddress: () =>
        Promise.reject(new LookupError('upstream_busy', { details: { reason: 'site_slots_busy' }, retryAfter: 1 })),
    };
    const provider = new FallbackProvider({
      url: platform.url,
      token: platform.token,
      actor: platform.actor,
      maxCostUsd: 0.05,
      maxCostCeilingUsd: 0.5,
      name: 'apify',
      timeoutMs: 5_000,
      clock: () => NOW,
    });
    const e = await failure(new WithFallback(own, provider).read(target(ROSWELL, '2146993218'), ctx()));
    expect(e.details).toEqual({ reason: 'site_slots_busy' });
    expect(platform.calls).toEqual([]);
  });
});
