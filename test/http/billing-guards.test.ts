// No paid upstream work for a lookup the account cannot pay for, and one account's refusal is never
// passed on to another account that asked for the same home at the same time.
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStore, type ReserveRequest, type ReserveResult } from '../../src/store/index.js';
import { forSaleItem, startFakeActorPlatform, type FakeActorPlatform } from '../fakes/fake-actor-platform.js';
import { startTestService, q, type TestService } from '../helpers/service.js';

let svc: TestService | undefined;
let platform: FakeActorPlatform | undefined;
afterEach(async () => {
  await svc?.close();
  await platform?.close();
  svc = undefined;
  platform = undefined;
});

describe('an address lookup by an account that cannot pay', () => {
  it.each([
    ['credits used up', { allotment: 0 }, {}, 402, 'credits_exhausted'],
    ['daily budget reached', { allotment: 50 }, { DAILY_LIVE_LOOKUP_BUDGET: '0' }, 503, 'live_lookups_capped'],
  ])('%s: refused before the fallback provider is asked (no paid run)', async (_name, plan, env, status, code) => {
    platform = await startFakeActorPlatform({ items: [forSaleItem()] });
    svc = await startTestService({
      env: { SELF_HOSTED_ENABLED: 'false', FALLBACK_URL: platform.url, FALLBACK_TOKEN: platform.token, FALLBACK_ACTOR: platform.actor, ...env },
      accounts: { poor: { key: 'poor_key_000001', plan: 'free', ...plan } },
    });
    for (let i = 0; i < 3; i += 1) {
      const r = await svc.get(`/v1/portal/property?${q({ address: '661 Lakeview Ave, San Francisco, CA 94112' })}`, svc.keys.poor);
      expect(r.status).toBe(status);
      expect(r.body.error.code).toBe(code);
    }
    expect(platform.calls).toEqual([]);
    expect(svc.replay.requests).toEqual([]);
  });

  it('an account that can pay gets the home through the provider, billed once', async () => {
    platform = await startFakeActorPlatform({ items: [forSaleItem()] });
    svc = await startTestService({
      env: { SELF_HOSTED_ENABLED: 'false', FALLBACK_URL: platform.url, FALLBACK_TOKEN: platform.token, FALLBACK_ACTOR: platform.actor },
    });
    const r = await svc.get(`/v1/portal/property?${q({ address: '661 Lakeview Ave, San Francisco, CA 94112' })}`);
    expect(r.status).toBe(200);
    expect(r.body.meta).toMatchObject({ credits: 1, source: { provider: 'apify' } });
    expect(platform.calls).toHaveLength(1);
    expect((await svc.get('/v1/account')).body.data.used).toBe(1);
  });
});

/** The real in-memory store, with reservations slowed down as a remote store's are under load. */
class SlowReserveStore extends MemoryStore {
  override async reserve(req: ReserveRequest): Promise<ReserveResult> {
    await new Promise((r) => setTimeout(r, 100));
    return super.reserve(req);
  }
}

describe('two accounts ask for the same uncached home at once', () => {
  it("the first one's refusal does not become the second one's answer", async () => {
    svc = await startTestService({
      store: new SlowReserveStore(),
      accounts: { poor: { key: 'poor_key_000002', plan: 'free', allotment: 0 }, rich: { key: 'rich_key_000002', plan: 'free', allotment: 5 } },
    });
    const poor = svc.get('/v1/portal/property?zpid=2146993218', svc.keys.poor);
    await new Promise((r) => setTimeout(r, 30));
    const rich = svc.get('/v1/portal/property?zpid=2146993218', svc.keys.rich);
    const [p, r] = await Promise.all([poor, rich]);
    expect(p.status).toBe(402);
    expect(r.status).toBe(200);
    expect(r.body.meta.credits).toBe(1);
  });
});
