// Every way the fallback provider can fail, as a REST client meets it: status, code, envelope, headers,
// retry-after where there is a wait; never billed, never cached. The platform is the stand-in on
// loopback (test/fakes/fake-actor-platform.ts), with the platform's documented refusals and run endings.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ErrorEnvelope } from '../../src/contract/index.js';
import {
  PLATFORM_ERRORS,
  forSaleItem,
  runStarts,
  startFakeActorPlatform,
  type FakeActorPlatform,
} from '../fakes/fake-actor-platform.js';
import { recordedBatch, todaysShape } from '../helpers/fallback-items.js';
import { expectSchema } from '../helpers/schema.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { HeldTimeLimits } from '../helpers/time-limits.js';

let platform: FakeActorPlatform;
let svc: TestService;
beforeAll(async () => {
  platform = await startFakeActorPlatform({ homes: [...recordedBatch().map(todaysShape), forSaleItem()] });
  // The own collector is off, so every live read goes to the provider. Its pauses after a 429 are
  // 10, 20, 40 ms here (500, 1000, 2000 by default): the count of tries is what the 429 test checks. The
  // lookup timeout is held and never passed here: no lookup of this service ends on the clock.
  svc = await startTestService({
    env: {
      SELF_HOSTED_ENABLED: 'false',
      FALLBACK_URL: platform.url,
      FALLBACK_TOKEN: platform.token,
      FALLBACK_ACTOR: platform.actor,
    },
    fallbackBackoffMs: 10,
    timeLimits: new HeldTimeLimits('lookup_timeout'),
  });
});
afterAll(async () => {
  await svc.close();
  await platform.close();
});
beforeEach(() => platform.reset());

const used = async () => (await svc.get('/v1/account')).body.data.used as number;

async function expectUnbilledFailure(path: string, status: number, code: string): Promise<Record<string, unknown>> {
  const before = await used();
  const r = await svc.get(path);
  expect(r.status).toBe(status);
  expect(r.body.error.code).toBe(code);
  expectSchema(ErrorEnvelope, r.body);
  expect(r.headers.get('x-api-version')).toBe('v1');
  expect(r.headers.get('cache-control')).toBe('no-store');
  if (code === 'upstream_busy') expect(r.headers.get('retry-after')).toBe('30');
  else expect(r.headers.get('retry-after')).toBeNull();
  expect(await used()).toBe(before);
  return r.body.error.details as Record<string, unknown>;
}

describe.each([
  ['402 memory-limit-exceeded', PLATFORM_ERRORS.memoryLimit, 503, 'upstream_busy'],
  ['402 cannot-start-actor-runs', PLATFORM_ERRORS.concurrentRuns, 503, 'upstream_busy'],
  ['402 not-enough-usage-to-run-paid-actor', PLATFORM_ERRORS.notEnoughUsage, 503, 'upstream_quota'],
  ['403 platform-feature-disabled', PLATFORM_ERRORS.monthlyLimit, 503, 'upstream_quota'],
  ['403 full-permission-actor-not-approved', PLATFORM_ERRORS.notApproved, 503, 'upstream_misconfigured'],
  ['401 user-or-token-not-found', PLATFORM_ERRORS.invalidToken, 503, 'upstream_auth'],
  ['404 record-not-found', PLATFORM_ERRORS.actorNotFound, 503, 'upstream_actor_missing'],
  ['500 internal-server-error', PLATFORM_ERRORS.internal, 502, 'upstream_error'],
] as const)('the platform refuses the run: %s', (_name, refusal, status, code) => {
  it(`→ ${status} ${code}, in the envelope, not billed, not cached`, async () => {
    platform.refuse('start', refusal);
    await expectUnbilledFailure('/v1/portal/property?zpid=7521381', status, code);
    expect(platform.runs).toEqual([]);
    expect(await svc.store.getEntries(['zpid:7521381'])).toEqual([null]);
  });
});

describe('the platform keeps answering 429', () => {
  it('→ backs off a bounded number of times, then 503 upstream_busy with retry-after', async () => {
    platform.refuse('start', ...Array.from({ length: 10 }, () => PLATFORM_ERRORS.rateLimited));
    await expectUnbilledFailure('/v1/portal/property?zpid=7521381', 503, 'upstream_busy');
    expect(runStarts(platform)).toHaveLength(4);
  });
});

describe('the run ends without a home', () => {
  it('stopped at its cost cap → 502 upstream_cost_cap naming the run', async () => {
    platform.resultPriceUsd = 0.06;
    const details = await expectUnbilledFailure('/v1/portal/property?zpid=7521381', 502, 'upstream_cost_cap');
    expect(details).toMatchObject({ run_id: platform.runs[0]!.id, max_total_charge_usd: 0.05 });
    expect(await svc.store.getEntries(['zpid:7521381'])).toEqual([null]);
  });

  it('failed → 502 upstream_run_failed; out of its own time → 504 upstream_timeout', async () => {
    platform.failRunsAs = 'FAILED';
    await expectUnbilledFailure('/v1/portal/property?zpid=7521381', 502, 'upstream_run_failed');
    platform.failRunsAs = 'TIMED-OUT';
    await expectUnbilledFailure('/v1/portal/property?zpid=7521381', 504, 'upstream_timeout');
    expect(await svc.store.getEntries(['zpid:7521381'])).toEqual([null]);
  });

  it("the actor's miss → 404 not_found with details.reason", async () => {
    const details = await expectUnbilledFailure('/v1/portal/property?zpid=99999', 404, 'not_found');
    expect(details).toMatchObject({ reason: 'Invalid address or Zillow has no data for this address' });
    expect(await svc.store.getEntries(['zpid:99999'])).toEqual([null]);
  });

  it('a home without the core fields → 502 upstream_bad_response', async () => {
    platform.homes = [todaysShape(forSaleItem())];
    const details = await expectUnbilledFailure('/v1/portal/property?zpid=15192198', 502, 'upstream_bad_response');
    expect(details).toMatchObject({ reason: 'item_without_core_fields' });
    expect(await svc.store.getEntries(['zpid:15192198'])).toEqual([null]);
  });

  it('still running when the lookup time is up → 504 upstream_timeout, and the run is aborted', async () => {
    // The run is held until aborted; the lookup time, passed by the test once the run has started and is
    // waited for, is what ends it (a service of its own on the same store: its own held limits).
    const limits = new HeldTimeLimits('lookup_timeout');
    const short = await startTestService({
      store: svc.store,
      env: {
        SELF_HOSTED_ENABLED: 'false',
        FALLBACK_URL: platform.url,
        FALLBACK_TOKEN: platform.token,
        FALLBACK_ACTOR: platform.actor,
      },
      timeLimits: limits,
    });
    try {
      platform.holding = true;
      platform.enforceRunTimeouts = false;
      const aborted = platform.nextAbort();
      const waited = platform.nextWait();
      const before = await used();
      const answer = short.get('/v1/portal/property?zpid=7521381');
      const run = await Promise.race([
        waited,
        answer.then(() => {
          throw new Error('answered before the run was started and waited for');
        }),
      ]);
      expect(limits.pass('lookup_timeout')).toBe(1);
      const r = await answer;
      expect(run.id).toBe(platform.runs[0]!.id);
      expect(r.status).toBe(504);
      expect(r.body.error.code).toBe('upstream_timeout');
      expect(r.body.error.details, JSON.stringify(r.body.error)).toMatchObject({ reason: 'timeout' });
      expectSchema(ErrorEnvelope, r.body);
      expect(r.headers.get('retry-after')).toBeNull();
      expect((await aborted).id).toBe(platform.runs[0]!.id);
      expect(await used()).toBe(before);
      expect(await svc.store.getEntries(['zpid:7521381'])).toEqual([null]);
    } finally {
      await short.close();
    }
  });
});

describe('the provider answering', () => {
  it('serves the home with meta.source naming the provider and the run, billed once', async () => {
    const before = await used();
    const r = await svc.get('/v1/portal/property?zpid=7521381');
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      zpid: '7521381',
      streetAddress: '938 W Portland Street',
      price: 755000,
      homeStatus: 'RECENTLY_SOLD',
    });
    expect(r.body.meta).toMatchObject({
      credits: 1,
      source: { provider: 'apify', actor: platform.actor, run_id: platform.runs[0]!.id },
    });
    expect(await used()).toBe(before + 1);
  });
});

describe('no way to read the site at all', () => {
  it('own collector off and no provider → 503 no_api_keys', async () => {
    const bare = await startTestService({ env: { SELF_HOSTED_ENABLED: 'false' } });
    try {
      const r = await bare.get('/v1/portal/property?zpid=15192198');
      expect(r.status).toBe(503);
      expect(r.body.error.code).toBe('no_api_keys');
      expect((await bare.get('/v1/account')).body.data.used).toBe(0);
    } finally {
      await bare.close();
    }
  });
});
