// Every upstream code of the fallback provider (spec 7) as a REST client meets it: status, envelope,
// headers, retry-after where there is a wait; never billed, never cached.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ErrorEnvelope } from '../../src/contract/index.js';
import { forSaleItem, startFakeActorPlatform, type ActorBehaviour, type FakeActorPlatform } from '../fakes/fake-actor-platform.js';
import { expectSchema } from '../helpers/schema.js';
import { startTestService, type TestService } from '../helpers/service.js';

let platform: FakeActorPlatform;
let svc: TestService;
beforeAll(async () => {
  platform = await startFakeActorPlatform({ items: [forSaleItem()] });
  // The own collector is off, so every live read goes to the provider.
  svc = await startTestService({
    env: { SELF_HOSTED_ENABLED: 'false', FALLBACK_URL: platform.url, FALLBACK_TOKEN: platform.token, FALLBACK_ACTOR: platform.actor, LOOKUP_TIMEOUT_MS: '1000' },
  });
});
afterAll(async () => {
  await svc.close();
  await platform.close();
});
beforeEach(() => {
  platform.behaviour = 'ok';
  platform.slowMs = 2_000;
});

const used = async () => (await svc.get('/v1/account')).body.data.used as number;

describe.each<[ActorBehaviour, number, string]>([
  ['auth', 503, 'upstream_auth'],
  ['quota', 503, 'upstream_quota'],
  ['missing_actor', 503, 'upstream_actor_missing'],
  ['cap_below_minimum', 503, 'upstream_misconfigured'],
  ['busy', 503, 'upstream_busy'],
  ['run_failed', 502, 'upstream_run_failed'],
  ['cost_cap', 502, 'upstream_cost_cap'],
  ['garbage', 502, 'upstream_bad_response'],
  ['unreachable', 502, 'upstream_unreachable'],
  ['server_error', 502, 'upstream_error'],
  ['slow', 504, 'upstream_timeout'],
  ['bad_input', 422, 'unprocessable_input'],
  ['empty', 404, 'not_found'],
])('provider %s', (behaviour, status, code) => {
  it(`→ ${status} ${code}, in the envelope, not billed, not cached`, async () => {
    platform.behaviour = behaviour;
    const before = await used();
    const r = await svc.get('/v1/portal/property?zpid=15192198');
    expect(r.status).toBe(status);
    expect(r.body.error.code).toBe(code);
    expectSchema(ErrorEnvelope, r.body);
    expect(r.headers.get('x-api-version')).toBe('v1');
    expect(r.headers.get('cache-control')).toBe('no-store');
    if (code === 'upstream_busy') expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await used()).toBe(before);
    expect(await svc.store.getEntries(['zpid:15192198'])).toEqual([null]);
  });
});

describe('the provider answering', () => {
  it('serves the home with meta.source naming the provider, billed once', async () => {
    const before = await used();
    const r = await svc.get('/v1/portal/property?zpid=15192198');
    expect(r.status).toBe(200);
    expect(r.body.data.zpid).toBe('15192198');
    expect(r.body.meta).toMatchObject({ credits: 1, source: { provider: 'apify', actor: platform.actor } });
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
