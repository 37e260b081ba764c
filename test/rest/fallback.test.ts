// The fallback provider end to end over REST (and one GraphQL check): the listing site walls the own
// collector off, the actor on the stand-in platform reads the home, and the service answers, bills and
// caches exactly as for its own reads; a wrong unit, a miss and an abandoned lookup are never billed.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  PLATFORM_ERRORS,
  runStarts,
  startFakeActorPlatform,
  type FakeActorPlatform,
} from '../fakes/fake-actor-platform.js';
import { recordedBatch, recordedWrongUnit, todaysShape } from '../helpers/fallback-items.js';
import { q, startTestService, type TestService } from '../helpers/service.js';
import { HeldTimeLimits } from '../helpers/time-limits.js';

const WALL = readFileSync(
  new URL('../../fixtures/portal/blocked-press-and-hold-2025-04.html', import.meta.url),
  'utf8',
);
const expected = (zpid: string) =>
  JSON.parse(readFileSync(new URL(`../../fixtures/fallback/expected/${zpid}.json`, import.meta.url), 'utf8')) as Record<
    string,
    unknown
  >;
const SUGGEST = '/autocomplete/v3/suggestions';

let platform: FakeActorPlatform;
let svc: TestService;
beforeAll(async () => {
  platform = await startFakeActorPlatform({
    homes: [...recordedBatch().map(todaysShape), todaysShape(recordedWrongUnit())],
  });
  // On a socket: one case's client goes away mid-lookup. The lookup timeout is held and never passed: a run
  // waited for (the client-abort case) ends only as the test says.
  svc = await startTestService({
    socket: 'client-abort',
    env: {
      FALLBACK_URL: platform.url,
      FALLBACK_TOKEN: platform.token,
      FALLBACK_ACTOR: platform.actor,
    },
    timeLimits: new HeldTimeLimits('lookup_timeout'),
  });
  // The site answers every page and the address search with its bot wall.
  for (const zpid of ['7521381', '7536781', '7529341', '2075961815'])
    svc.replay.faults.set(`/homedetails/${zpid}_zpid/`, { status: 403, body: WALL });
  svc.replay.faults.set(SUGGEST, { status: 403, body: WALL });
});
afterAll(async () => {
  await svc.close();
  await platform.close();
});
beforeEach(() => platform.reset());

const used = async () => (await svc.get('/v1/account')).body.data.used as number;
const reserved = async () => (await svc.store.usage((await svc.store.listAccounts())[0]!.id, 'lifetime')).reserved;

describe('a home behind the bot wall', () => {
  it('is answered from the fallback: every mapped field, meta.source naming the provider and the run, billed once, then cached', async () => {
    const before = await used();
    const r = await svc.get('/v1/portal/property?zpid=7521381');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-cache')).toBe('MISS');
    expect(r.body.data).toEqual({ ...expected('7521381'), scrapedAt: r.body.meta.fetched_at });
    expect(r.body.meta).toMatchObject({
      credits: 1,
      cached: false,
      cache_key: 'zpid:7521381',
      source: { provider: 'apify', fallback_from: 'self_hosted', actor: platform.actor, run_id: platform.runs[0]!.id },
    });
    expect(await used()).toBe(before + 1);

    const again = await svc.get('/v1/portal/property?zpid=7521381');
    expect(again.headers.get('x-cache')).toBe('HIT');
    expect(again.body.meta).toMatchObject({ credits: 0, cached: true, source: { run_id: platform.runs[0]!.id } });
    expect(runStarts(platform)).toHaveLength(1);
    expect(await used()).toBe(before + 1);
  });

  it('raw=true returns the actor item as it came', async () => {
    const r = await svc.get('/v1/portal/property?zpid=7536781&raw=true');
    expect(r.status).toBe(200);
    expect(r.body.data.raw).toMatchObject({
      zpid: 7536781,
      listingAddress: { street: '522 W ENCANTO Boulevard' },
      isValid: true,
    });
  });
});

describe('an address the actor resolves', () => {
  it('asked for #429 and answered #318: 409 address_ambiguous with the candidate, not billed; the repeat is remembered', async () => {
    const before = await used();
    const address = '12222 N Paradise Village Pkwy #429, Phoenix, AZ 85032';
    const r = await svc.get(`/v1/portal/property?${q({ address })}`);
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({
      code: 'address_ambiguous',
      details: {
        candidate: { detailUrl: 'https://www.zillow.com/homedetails/2053953599_zpid/', zpid: '2053953599' },
        mismatch: ['unit'],
      },
    });
    const again = await svc.get(`/v1/portal/property?${q({ address })}`);
    expect(again.status).toBe(409);
    expect(runStarts(platform)).toHaveLength(1);
    expect(await used()).toBe(before);
    expect(await svc.store.getEntries(['zpid:2053953599'])).toEqual([null]);
  });

  it("the actor's miss: 404 not_found with details.reason, not billed, not cached", async () => {
    const before = await used();
    const r = await svc.get(`/v1/portal/property?${q({ address: '1 Nowhere St, Springfield, IL 62701' })}`);
    expect(r.status).toBe(404);
    expect(r.body.error).toMatchObject({
      code: 'not_found',
      details: { reason: 'Invalid address or Zillow has no data for this address' },
    });
    expect(await used()).toBe(before);
  });

  it('the right home: billed once and cached under its zpid and the address', async () => {
    const before = await used();
    const r = await svc.get(
      `/v1/portal/property?${q({ address: '1309 E Willetta St, Phoenix, AZ 85006', status: 'sold' })}`,
    );
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ zpid: '7529341', price: 384000, homeStatus: 'RECENTLY_SOLD' });
    expect(r.body.meta).toMatchObject({ credits: 1, source: { provider: 'apify', run_id: platform.runs[0]!.id } });
    expect(runStarts(platform)[0]!.input).toEqual({
      addresses: ['1309 E Willetta St, Phoenix, AZ 85006'],
      propertyStatus: 'RECENTLY_SOLD',
    });
    expect(await used()).toBe(before + 1);
    expect((await svc.get('/v1/portal/property?zpid=7529341')).headers.get('x-cache')).toBe('HIT');
  });
});

describe('an abandoned lookup aborts its run', () => {
  it('the client goes away: the run is aborted, nothing billed, nothing cached', async () => {
    platform.holding = true;
    const before = await used();
    const controller = new AbortController();
    const pending = fetch(`${svc.url}/v1/portal/property?zpid=2075961815`, {
      headers: { 'x-api-key': svc.keys.free! },
      signal: controller.signal,
    }).catch((e: unknown) => e);
    const run = await platform.nextWait();
    const aborted = platform.nextAbort();
    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    expect((await aborted).id).toBe(run.id);
    await expect.poll(reserved).toBe(0);
    expect(await used()).toBe(before);
    expect(await svc.store.getEntries(['zpid:2075961815'])).toEqual([null]);
  });

  it('the batch deadline passes while the start is unanswered: batch_deadline at once, then the run the start created is aborted, unbilled', async () => {
    // The own collector first, walled off by the site, as in production. The deadline passes when the test
    // says so, once the run is started on the platform (its start's answer held).
    const limits = new HeldTimeLimits('batch_deadline', 'lookup_timeout');
    const short = await startTestService({
      env: {
        FALLBACK_URL: platform.url,
        FALLBACK_TOKEN: platform.token,
        FALLBACK_ACTOR: platform.actor,
      },
      timeLimits: limits,
    });
    short.replay.faults.set('/homedetails/2075961815_zpid/', { status: 403, body: WALL });
    try {
      platform.holding = true;
      const started = platform.hold('start');
      const answered = short.post('/v1/portal/batch', { items: [{ zpid: '2075961815' }] });
      // The run exists on the platform; only the unanswered start could name it.
      await Promise.race([
        started.reached,
        answered.then(() => {
          throw new Error('the batch was answered before the run was started');
        }),
      ]);
      // The deadline passes while the start is held: the answer does not wait for it.
      expect(limits.pass('batch_deadline')).toBe(1);
      const r = await answered;
      expect(r.status).toBe(200);
      expect(r.body.data[0]).toMatchObject({ ok: false, error: { code: 'batch_deadline' } });
      // The wall on the first session and on two fresh ones (PORTAL_SESSION_RETRIES), then the provider.
      expect(short.replay.requests.map((q) => q.path)).toEqual(Array(3).fill('/homedetails/2075961815_zpid/'));
      // The run's own timeout counts what the own collector already spent of the 60 s limit.
      expect(Number(runStarts(platform)[0]!.query.timeout)).toBeLessThan(50);
      const aborted = platform.nextAbort();
      started.open();
      expect((await aborted).id).toBe(platform.runs[0]!.id);
      expect((await short.get('/v1/account')).body.data.used).toBe(0);
      expect(await short.store.getEntries(['zpid:2075961815'])).toEqual([null]);
    } finally {
      await short.close();
    }
  });
});

describe('GraphQL', () => {
  it('exposes the fallback codes: a platform at capacity is upstream_busy with retryAfter, not billed', async () => {
    platform.refuse('start', PLATFORM_ERRORS.concurrentRuns);
    const before = await used();
    const r = await svc.post('/graphql', {
      query: '{ property(zpid: "2075961815") { ... on LookupError { code retryAfter } } }',
    });
    expect(r.status).toBe(200);
    expect(r.body.data.property).toEqual({ code: 'upstream_busy', retryAfter: 30 });
    expect(await used()).toBe(before);
  });
});
