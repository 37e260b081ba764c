// No paid upstream work for a lookup the account cannot pay for, and one account's refusal is never
// passed on to another account that asked for the same home at the same time.
import { afterEach, describe, expect, it } from 'vitest';
import { hashApiKey, seededAccountId } from '../../src/accounts/keys.js';
import { LookupError } from '../../src/contract/index.js';
import { MemoryStore, type ReserveRequest, type ReserveResult } from '../../src/store/index.js';
import { startReplayServer } from '../../src/replay/server.js';
import {
  forSaleItem,
  runStarts,
  startFakeActorPlatform,
  type FakeActorPlatform,
} from '../fakes/fake-actor-platform.js';
import { startGatedProxy, type GatedProxy } from '../helpers/gated-proxy.js';
import { startTestService, q, type ReplayServer, type TestService } from '../helpers/service.js';
import { HeldTimeLimits } from '../helpers/time-limits.js';

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
      env: {
        SELF_HOSTED_ENABLED: 'false',
        FALLBACK_URL: platform.url,
        FALLBACK_TOKEN: platform.token,
        FALLBACK_ACTOR: platform.actor,
        ...env,
      },
      accounts: { poor: { key: 'poor_key_000001', plan: 'free', ...plan } },
    });
    for (let i = 0; i < 3; i += 1) {
      const r = await svc.get(
        `/v1/portal/property?${q({ address: '661 Lakeview Ave, San Francisco, CA 94112' })}`,
        svc.keys.poor,
      );
      expect(r.status).toBe(status);
      expect(r.body.error.code).toBe(code);
    }
    expect(runStarts(platform)).toEqual([]);
    expect(svc.replay.requests).toEqual([]);
  });

  it('an account that can pay gets the home through the provider, billed once', async () => {
    platform = await startFakeActorPlatform({ items: [forSaleItem()] });
    svc = await startTestService({
      env: {
        SELF_HOSTED_ENABLED: 'false',
        FALLBACK_URL: platform.url,
        FALLBACK_TOKEN: platform.token,
        FALLBACK_ACTOR: platform.actor,
      },
    });
    const r = await svc.get(`/v1/portal/property?${q({ address: '661 Lakeview Ave, San Francisco, CA 94112' })}`);
    expect(r.status).toBe(200);
    expect(r.body.meta).toMatchObject({ credits: 1, source: { provider: 'apify' } });
    expect(runStarts(platform)).toHaveLength(1);
    expect((await svc.get('/v1/account')).body.data.used).toBe(1);
  });
});

/**
 * The real in-memory store, holding the first reservation (the leader's, made under the lock) until a
 * second request has missed the cache, i.e. is about to follow the lead, as a remote store's
 * reservation is held up under load. The leader reads the cache twice (its miss, then again under the
 * lock), so its read under the lock is not counted as a miss.
 */
class HeldFirstReserveStore extends MemoryStore {
  private reads = 0;
  /** Cache reads before the first lock was asked for (the leader's own miss among them). */
  readsBeforeFirstLock: number | null = null;
  /** The reservations that had to wait at the gate, by account. */
  readonly held: string[] = [];
  /** Refused locks: a request that leads into a home another holds instead of following it. */
  refusedLocks = 0;
  private onCacheRead: (() => void) | null = null;
  private firstReserveArrived!: () => void;
  readonly firstReserve = new Promise<void>((resolve) => (this.firstReserveArrived = resolve));
  private reserves = 0;

  override async getEntries(keys: readonly string[]) {
    this.reads += 1;
    this.onCacheRead?.();
    return super.getEntries(keys);
  }
  override async tryLock(key: string, token: string, ttlMs: number): Promise<boolean> {
    this.readsBeforeFirstLock ??= this.reads;
    const locked = await super.tryLock(key, token, ttlMs);
    if (!locked) this.refusedLocks += 1;
    return locked;
  }
  /** Misses: every read but the first lock holder's read under it. */
  private misses(): number {
    return this.readsBeforeFirstLock === null ? this.reads : this.reads - 1;
  }
  override async reserve(req: ReserveRequest): Promise<ReserveResult> {
    if (++this.reserves === 1) {
      this.firstReserveArrived();
      if (this.misses() < 2) {
        this.held.push(req.accountId);
        await new Promise<void>((resolve) => {
          this.onCacheRead = () => {
            if (this.misses() >= 2) resolve();
          };
        });
        this.onCacheRead = null;
        // The follower's cache miss is answered, and it joins the lead, before the leader goes on (all
        // in-process promise steps, done within a turn of the event loop).
        for (let i = 0; i < 3; i += 1) await new Promise((r) => setImmediate(r));
      }
    }
    return super.reserve(req);
  }
}

describe('two accounts ask for the same uncached home at once', () => {
  it("the first one's refusal does not become the second one's answer", async () => {
    const store = new HeldFirstReserveStore();
    svc = await startTestService({
      store,
      accounts: {
        poor: { key: 'poor_key_000002', plan: 'free', allotment: 0 },
        rich: { key: 'rich_key_000002', plan: 'free', allotment: 5 },
      },
    });
    // The account that cannot pay leads: the other asks once the leader is reserving under the lock.
    const poor = svc.get('/v1/portal/property?zpid=2146993218', svc.keys.poor);
    await store.firstReserve;
    const rich = svc.get('/v1/portal/property?zpid=2146993218', svc.keys.rich);
    const [p, r] = await Promise.all([poor, rich]);
    expect(p.status).toBe(402);
    expect(r.status).toBe(200);
    expect(r.body.meta.credits).toBe(1);
    // The gate held the leader's reservation, and the leader was the account that cannot pay.
    expect(store.readsBeforeFirstLock).toBe(1);
    expect(store.held).toEqual([seededAccountId(hashApiKey(svc.keys.poor!, svc.config.apiKeySecret))]);
    // Nobody led into the lock while the leader held it (the other request found the lead in process).
    expect(store.refusedLocks).toBe(0);
  });
});

/** The real in-memory store, counting the reservations it makes and refuses (gates for the test, nothing changed). */
class CountingStore extends MemoryStore {
  refusals = 0;
  reservationsMade = 0;
  private waiters: Array<{ n: number; ok: boolean; wake: () => void }> = [];
  override async reserve(req: ReserveRequest): Promise<ReserveResult> {
    const result = await super.reserve(req);
    if (result.ok) this.reservationsMade += 1;
    else this.refusals += 1;
    for (const w of this.waiters.filter((x) => x.n <= (x.ok ? this.reservationsMade : this.refusals))) w.wake();
    return result;
  }
  /** Resolves once `n` reservations were refused. */
  refused(n: number): Promise<void> {
    return this.refusals >= n ? Promise.resolve() : new Promise((wake) => this.waiters.push({ n, ok: false, wake }));
  }
  /** Resolves once `n` reservations were made (each a credit held by a lookup in flight). */
  reserved(n: number): Promise<void> {
    return this.reservationsMade >= n
      ? Promise.resolve()
      : new Promise((wake) => this.waiters.push({ n, ok: true, wake }));
  }
}

describe('credits held by lookups in flight are not used up (issue 9.2)', () => {
  let proxy: GatedProxy | undefined;
  let site: ReplayServer | undefined;
  afterEach(async () => {
    await proxy?.close();
    await site?.close();
    proxy = undefined;
    site = undefined;
  });

  const GOOD = ['2146993218', '15192198', '114303858', '450233440', '999000101'];
  const FAILING = Array.from({ length: 10 }, (_, i) => String(888000001 + i)); // no such homes: not_found

  async function start(store: MemoryStore, timeLimits?: HeldTimeLimits) {
    site = await startReplayServer({ host: '127.0.0.1', port: 0 });
    proxy = await startGatedProxy(site.origin);
    svc = await startTestService({
      // No cap on one key's live lookups at once (MAX_LIVE_PER_KEY): 15 sent together all reach billing.
      store,
      replayServer: site,
      env: { PORTAL_ORIGIN: proxy.origin, MAX_LIVE_PER_KEY: '0' },
      accounts: { five: { key: 'five_key_000001', plan: 'free', allotment: 5 } },
      ...(timeLimits ? { timeLimits } : {}),
    });
    return svc;
  }
  const lookup = (s: TestService, zpid: string) =>
    s.get(`/v1/portal/property?zpid=${zpid}`, s.keys.five).then((r) => ({
      zpid,
      status: r.status,
      code: r.body?.error?.code ?? null,
      credits: r.body?.meta?.credits ?? 0,
    }));

  it('5 failing lookups hold the whole allotment while 5 good ones arrive: the good ones wait, then are served and billed', async () => {
    const store = new CountingStore();
    const s = await start(store);
    const failing = FAILING.slice(0, 5).map((z) => lookup(s, z));
    // Every credit is held by a lookup in flight: reserved before its read (the site's slots let four reads
    // reach the gate; the fifth waits for a slot, its credit held).
    await store.reserved(5);
    const good = GOOD.map((z) => lookup(s, z));
    await store.refused(5); // each good one was refused once: credits in flight, not used up
    proxy!.open();
    const [f, g] = [await Promise.all(failing), await Promise.all(good)];
    for (const o of f) expect(o).toMatchObject({ status: 404, code: 'not_found' });
    for (const o of g) expect(o, JSON.stringify(o)).toMatchObject({ status: 200, credits: 1 });
    const account = (await s.get('/v1/account', s.keys.five)).body.data;
    expect(account).toMatchObject({ used: 5, remaining: 0 });
    expect(await store.ledger()).toHaveLength(5);
    expect((await s.get('/v1/portal/property?zpid=999000102', s.keys.five)).body.error.code).toBe('credits_exhausted');
  });

  it('10 failing and 5 good lookups sent together (allotment 5): all 5 good served, no 402', async () => {
    const store = new CountingStore();
    const s = await start(store);
    proxy!.open();
    const all = await Promise.all([...FAILING, ...GOOD].map((z) => lookup(s, z)));
    console.info('[billing/in-flight]', JSON.stringify({ refusals: store.refusals }));
    for (const o of all.filter((x) => GOOD.includes(x.zpid)))
      expect(o, JSON.stringify(o)).toMatchObject({ status: 200, credits: 1 });
    // A failing lookup still waiting once the good ones were charged is refused: by then the credits are used up.
    for (const o of all.filter((x) => FAILING.includes(x.zpid))) {
      expect([
        { status: 404, code: 'not_found' },
        { status: 402, code: 'credits_exhausted' },
      ]).toContainEqual({ status: o.status, code: o.code });
    }
    expect((await s.get('/v1/account', s.keys.five)).body.data).toMatchObject({ used: 5, remaining: 0 });
  });

  it('a batch whose deadline passes while it waits for credits held in flight: batch_deadline, never a 402', async () => {
    const store = new CountingStore();
    // The deadline passes when the test says so: once the batch's item was refused for the credits in
    // flight, and is waiting for them (a single lookup has no deadline: only the batch's is held).
    const limits = new HeldTimeLimits('batch_deadline');
    const s = await start(store, limits);
    const failing = FAILING.slice(0, 5).map((z) => lookup(s, z));
    await store.reserved(5);
    const batch = s.post('/v1/portal/batch', { items: [{ zpid: GOOD[0] }] }, s.keys.five);
    await store.refused(1);
    expect(limits.pass('batch_deadline')).toBe(1);
    const answered = await batch;
    proxy!.open();
    await Promise.all(failing);
    expect(answered.status).toBe(200);
    expect(answered.body.data[0].error.code, JSON.stringify(answered.body)).toBe('batch_deadline');
    expect(store.refusals).toBeGreaterThan(0);
  });
});

/** The real in-memory store, refusing to write address aliases (as a store shedding writes under load does). */
class AliasRefusingStore extends MemoryStore {
  override async putAlias(key: string, target: string, ttlMs: number): Promise<void> {
    if (key.startsWith('addr:')) throw new LookupError('store_unavailable');
    return super.putAlias(key, target, ttlMs);
  }
}

describe('an address alias that cannot be written (issue 9, review)', () => {
  const address = '661 Lakeview Ave, San Francisco, CA 94112';
  const fallback = (p: FakeActorPlatform) => ({
    SELF_HOSTED_ENABLED: 'false',
    FALLBACK_URL: p.url,
    FALLBACK_TOKEN: p.token,
    FALLBACK_ACTOR: p.actor,
  });

  it('a home read and charged is served, never answered with an error: charged == delivered == ledger', async () => {
    platform = await startFakeActorPlatform({ items: [forSaleItem()] });
    const store = new AliasRefusingStore();
    svc = await startTestService({ store, env: fallback(platform) });
    const r = await svc.get(`/v1/portal/property?${q({ address })}`);
    expect(r.status).toBe(200);
    expect(r.body.meta.credits).toBe(1);
    expect((await svc.get('/v1/account')).body.data.used).toBe(1);
    expect(await store.ledger()).toHaveLength(1);
  });

  it('a home already cached under its zpid is served as a hit (credits 0), not answered with an error', async () => {
    platform = await startFakeActorPlatform({ items: [forSaleItem()] });
    const store = new AliasRefusingStore();
    svc = await startTestService({ store, env: fallback(platform) });
    expect((await svc.get('/v1/portal/property?zpid=15192198')).body.meta.credits).toBe(1);
    const r = await svc.get(`/v1/portal/property?${q({ address })}`);
    expect(r.status).toBe(200);
    expect(r.body.meta).toMatchObject({ cached: true, credits: 0 });
    expect((await svc.get('/v1/account')).body.data.used).toBe(1);
    expect(await store.ledger()).toHaveLength(1);
  });
});
