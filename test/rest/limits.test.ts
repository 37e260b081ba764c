// Plans and service limits (spec 7, 8): refused before any read, never billed, cached homes still served.
import { afterEach, describe, expect, it } from 'vitest';
import { startReplayServer } from '../../src/replay/server.js';
import { startGatedProxy, type GatedProxy } from '../helpers/gated-proxy.js';
import { startTestService, type ReplayServer, type TestService } from '../helpers/service.js';

let svc: TestService | undefined;
afterEach(async () => {
  await svc?.close();
  svc = undefined;
});

const HOME = '/v1/portal/property?zpid=2146993218';
const OTHER = '/v1/portal/property?zpid=114303858';

describe('free plan allotment', () => {
  it('used up → 402 credits_exhausted with upgrade_url; cached homes still work', async () => {
    svc = await startTestService({
      accounts: { tiny: { key: 'tiny_key_000001', plan: 'free', allotment: 1 } },
    });
    const key = svc.keys.tiny!;
    expect((await svc.get(HOME, key)).body.meta.credits).toBe(1);
    const reads = svc.replay.requests.length;
    const refused = await svc.get(OTHER, key);
    expect(refused.status).toBe(402);
    expect(refused.body.error.code).toBe('credits_exhausted');
    expect(refused.body.error.details.upgrade_url).toMatch(/^https?:\/\//);
    expect(svc.replay.requests.length).toBe(reads);
    const cached = await svc.get(HOME, key);
    expect(cached.status).toBe(200);
    expect(cached.headers.get('x-cache')).toBe('HIT');
    const usage = (await svc.get('/v1/account', key)).body.data;
    expect(usage).toMatchObject({ plan: 'free', used: 1, included: 1, remaining: 0 });
  });
});

describe('paid plan', () => {
  it('past the included lookups with overage off → 402 credits_exhausted', async () => {
    svc = await startTestService({
      accounts: { p: { key: 'paid_key_000001', plan: 'paid', included: 1, overage: false } },
    });
    expect((await svc.get(HOME, svc.keys.p)).status).toBe(200);
    const r = await svc.get(OTHER, svc.keys.p);
    expect(r.status).toBe(402);
    expect(r.body.error.code).toBe('credits_exhausted');
  });

  it('overage is paused while a payment is failing', async () => {
    svc = await startTestService({
      accounts: {
        p: {
          key: 'paid_key_000002',
          plan: 'paid',
          included: 0,
          overage: true,
          overageRateUsd: 0.1,
          paymentFailing: true,
        },
      },
    });
    const r = await svc.get(HOME, svc.keys.p);
    expect(r.status).toBe(402);
    expect(r.body.error).toMatchObject({ code: 'credits_exhausted', details: { reason: 'payment_failing' } });
  });

  it('overage up to the spend limit, then 402 spend_limit_reached with the figures', async () => {
    svc = await startTestService({
      accounts: {
        p: {
          key: 'paid_key_000003',
          plan: 'paid',
          included: 1,
          overage: true,
          overageRateUsd: 0.5,
          spendLimitUsd: 0.5,
        },
      },
    });
    expect((await svc.get(HOME, svc.keys.p)).body.meta.credits).toBe(1);
    expect((await svc.get(OTHER, svc.keys.p)).body.meta.credits).toBe(1);
    const r = await svc.get('/v1/portal/property?zpid=15192198', svc.keys.p);
    expect(r.status).toBe(402);
    expect(r.body.error.code).toBe('spend_limit_reached');
    expect(r.body.error.details).toMatchObject({
      spend_limit_usd: 0.5,
      overage_rate_usd: 0.5,
      overage_used_usd: 0.5,
      overage_lookups: 1,
    });
    expect(r.body.error.details.dashboard_url).toMatch(/^https?:\/\//);
    expect((await svc.get(HOME, svc.keys.p)).status).toBe(200);
    const usage = (await svc.get('/v1/account', svc.keys.p)).body.data;
    expect(usage).toMatchObject({
      plan: 'paid',
      used: 2,
      included: 1,
      remaining: 0,
      overage_used: 1,
      overage_usd: 0.5,
      spend_limit_usd: 0.5,
    });
    expect(usage.period_end).toMatch(/^\d{4}-\d\d-01T00:00:00\.000Z$/);
  });
});

describe('spend_limit_reached says what the refusal was based on (issue 9.12)', () => {
  let proxy: GatedProxy | undefined;
  let site: ReplayServer | undefined;
  afterEach(async () => {
    await proxy?.close();
    await site?.close();
    proxy = undefined;
    site = undefined;
  });

  it('overage held by a lookup in flight is reported as in flight, beside the overage charged', async () => {
    site = await startReplayServer({ host: '127.0.0.1', port: 0 });
    proxy = await startGatedProxy(site.origin);
    svc = await startTestService({
      replayServer: site,
      // No wait for lookups in flight: the refusal is answered at once, on what is held.
      env: { PORTAL_ORIGIN: proxy.origin, CREDIT_WAIT_MS: '0' },
      accounts: {
        p: {
          key: 'paid_key_000009',
          plan: 'paid',
          included: 0,
          overage: true,
          overageRateUsd: 0.5,
          spendLimitUsd: 0.5,
        },
      },
    });
    const first = svc.get(HOME, svc.keys.p);
    await proxy.arrived(1); // its overage is held, not charged
    const refused = await svc.get(OTHER, svc.keys.p);
    expect(refused.status).toBe(402);
    expect(refused.body.error.details).toMatchObject({
      spend_limit_usd: 0.5,
      overage_rate_usd: 0.5,
      overage_used_usd: 0,
      overage_lookups: 0,
      overage_in_flight_lookups: 1,
      overage_in_flight_usd: 0.5,
    });
    proxy.open();
    expect((await first).body.meta.credits).toBe(1);
    const after = await svc.get(OTHER, svc.keys.p);
    expect(after.body.error.details).toMatchObject({
      overage_used_usd: 0.5,
      overage_lookups: 1,
      overage_in_flight_lookups: 0,
      overage_in_flight_usd: 0,
    });
  });
});

describe('billing periods', () => {
  it("a paid plan's included lookups and spend limit start again with the calendar month (UTC)", async () => {
    let now = new Date('2026-11-30T23:00:00Z');
    svc = await startTestService({
      clock: () => now,
      accounts: { p: { key: 'paid_key_000005', plan: 'paid', included: 1, overage: false } },
    });
    expect((await svc.get(HOME, svc.keys.p)).status).toBe(200);
    expect((await svc.get(OTHER, svc.keys.p)).body.error.code).toBe('credits_exhausted');
    now = new Date('2026-12-01T00:30:00Z');
    const r = await svc.get(OTHER, svc.keys.p);
    expect(r.status).toBe(200);
    expect(r.body.meta.credits).toBe(1);
    expect((await svc.get('/v1/account', svc.keys.p)).body.data).toMatchObject({
      used: 1,
      remaining: 0,
      period_end: '2027-01-01T00:00:00.000Z',
    });
  });

  it('the free allotment is one-time: a new month does not restore it', async () => {
    let now = new Date('2026-11-30T23:00:00Z');
    svc = await startTestService({
      clock: () => now,
      accounts: { f: { key: 'free_key_000006', plan: 'free', allotment: 1 } },
    });
    expect((await svc.get(HOME, svc.keys.f)).status).toBe(200);
    now = new Date('2027-02-01T00:00:00Z');
    expect((await svc.get(OTHER, svc.keys.f)).body.error.code).toBe('credits_exhausted');
  });
});

describe('service-wide daily budget', () => {
  it('reached → 503 live_lookups_capped with retry-after to midnight UTC; not charged; cached still served', async () => {
    const now = new Date('2026-11-22T23:00:00Z');
    svc = await startTestService({ env: { DAILY_LIVE_LOOKUP_BUDGET: '1' }, clock: () => now });
    expect((await svc.get(HOME)).status).toBe(200);
    const r = await svc.get(OTHER);
    expect(r.status).toBe(503);
    expect(r.body.error).toMatchObject({ code: 'live_lookups_capped', details: { scope: 'service_daily_budget' } });
    expect(r.headers.get('retry-after')).toBe('3600');
    expect((await svc.get(HOME)).headers.get('x-cache')).toBe('HIT');
    expect((await svc.get('/v1/account')).body.data.used).toBe(1);
    const batch = await svc.post('/v1/portal/batch', { items: [{ zpid: '114303858' }] });
    expect(batch.body.data[0].error).toMatchObject({
      code: 'live_lookups_capped',
      details: { scope: 'service_daily_budget', retry_after: 3600 },
    });
  });

  it('paid plans draw on their own budget, reported as paid_daily_budget', async () => {
    svc = await startTestService({
      env: { DAILY_LIVE_LOOKUP_BUDGET: '0', PAID_DAILY_LIVE_LOOKUP_BUDGET: '1' },
      accounts: {
        p: { key: 'paid_key_000004', plan: 'paid', included: 10 },
        f: { key: 'free_key_000004', plan: 'free' },
      },
    });
    expect((await svc.get(HOME, svc.keys.f)).body.error.code).toBe('live_lookups_capped');
    expect((await svc.get(HOME, svc.keys.p)).status).toBe(200);
    const r = await svc.get(OTHER, svc.keys.p);
    expect(r.body.error).toMatchObject({ code: 'live_lookups_capped', details: { scope: 'paid_daily_budget' } });
  });
});

describe('live lookups disabled', () => {
  it('→ 503 live_lookups_disabled, no read; cached homes keep working', async () => {
    svc = await startTestService();
    expect((await svc.get(HOME)).status).toBe(200);
    await svc.close();
    const store = svc.store;
    svc = await startTestService({ env: { LIVE_LOOKUPS_ENABLED: 'false' }, store });
    const r = await svc.get(OTHER);
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe('live_lookups_disabled');
    expect(svc.replay.requests).toEqual([]);
    expect((await svc.get(HOME)).headers.get('x-cache')).toBe('HIT');
  });
});
