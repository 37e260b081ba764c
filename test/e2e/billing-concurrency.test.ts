// Several service instances (buildApp + listen) on ONE real redis-server, the local replay of recorded
// pages as the listing site, hundreds of concurrent REST lookups with duplicates across many accounts:
// charged credits == successful live lookups == ledger entries, no account over its allotment, the
// daily budget never exceeded, one upstream read per home.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey, seededAccountId, type AccountSeed } from '../../src/accounts/index.js';
import { startReplayServer } from '../../src/replay/server.js';
import { Redis } from 'ioredis';
import { RedisStore } from '../../src/store/redis.js';
import type { LedgerEntry } from '../../src/store/types.js';
import { startGatedProxy, type GatedProxy } from '../helpers/gated-proxy.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startTestService, type ReplayServer, type TestService } from '../helpers/service.js';

// The services' clock, frozen at this run's start (not at a fixed date): Redis keeps its own time.
const NOW = new Date();
const DAY = NOW.toISOString().slice(0, 10);
const INSTANCES = 3;
/** Homes the replay serves readably (zpid → its page's path). */
const HOMES: Record<string, string> = {
  '2146993218': '/homedetails/6851-Roswell-Rd-APT-O31-Sandy-Springs-GA-30328/2146993218_zpid/',
  '15192198': '/homedetails/661-Lakeview-Ave-San-Francisco-CA-94112/15192198_zpid/',
  '114303858': '/homedetails/2435-Aspen-Rd-UNIT-104-Ames-IA-50010/114303858_zpid/',
  '450233440': '/homedetails/710-E-Dean-Keeton-St-111-Austin-TX-78705/450233440_zpid/',
  '999000101': '/homedetails/7412-Sample-Ridge-Dr-McKinney-TX-75071/999000101_zpid/',
  '999000102': '/homedetails/15-Placeholder-Ct-Plano-TX-75024/999000102_zpid/',
  '999000103': '/homedetails/2210-Example-Ave-Columbus-OH-43214/999000103_zpid/',
  '999000104': '/homedetails/1800-Test-Parcel-Rd-Bend-OR-97703/999000104_zpid/',
  '999000105': '/homedetails/55-Legacy-Fixture-St-Denver-CO-80205/999000105_zpid/',
  '999000106': '/homedetails/318-Demo-Oak-Ln-UNIT-4-Raleigh-NC-27601/999000106_zpid/',
};
/** Homes whose read fails (bot wall, malformed page): errors, never billed. */
const BROKEN = ['999000401', '999000501'];

interface Outcome {
  status: number;
  code: string | null;
  credits: number;
  cached: boolean | null;
  requestId: string | null;
  account: string;
  zpid: string;
}

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await disposeRedisServer(redis);
});

let services: TestService[] = [];
let stores: RedisStore[] = [];
let replay: ReplayServer | undefined;
let proxy: GatedProxy | undefined;
let prefix = '';
afterEach(async () => {
  await Promise.all(services.map((s) => s.close()));
  await Promise.all(stores.map((s) => s.close()));
  await proxy?.close();
  await replay?.close();
  services = [];
  stores = [];
  replay = undefined;
  proxy = undefined;
});

/**
 * Homes found being read by another instance (a refused single-flight lock), by `instance:lock`: a
 * follower counts once however often it polls.
 */
const lockWaits = new Set<string>();
let onLockWait = () => {};
const waitedFor = (n: number) =>
  new Promise<void>((resolve) => {
    onLockWait = () => lockWaits.size >= n && resolve();
    onLockWait();
  });

/** The instance's store, noting each lock it is refused (nothing else changed). */
function watchingLocks(store: RedisStore, instance: number): RedisStore {
  return new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop !== 'tryLock') return typeof value === 'function' ? value.bind(target) : value;
      return async (key: string, token: string, ttlMs: number) => {
        const got = await target.tryLock(key, token, ttlMs);
        if (!got) {
          lockWaits.add(`${instance}:${key}`);
          onLockWait();
        }
        return got;
      };
    },
  });
}

/**
 * Redis commands may take this long on a loaded machine before they fail. The lease is three of them,
 * as config.ts requires of a service (a lease is renewed every third of it): a lease no longer than
 * one slow renewal lapses while its holder is alive, and another instance reads the home again, which
 * the one-read assertions report as a second read (each read is charged to its own request once).
 */
const COMMAND_TIMEOUT_MS = 5_000;

/** Three instances on one Redis; with `gated`, the site answers only once the test opens the gate. */
async function cluster(
  accounts: Record<string, AccountSeed>,
  env: Record<string, string>,
  latencyMs = 120,
  gated = false,
): Promise<void> {
  prefix = `e2e${randomUUID().slice(0, 8)}:`;
  lockWaits.clear();
  replay = await startReplayServer({ host: '127.0.0.1', port: 0, latencyMs });
  if (gated) proxy = await startGatedProxy(replay.origin);
  for (let i = 0; i < INSTANCES; i++) {
    const store = await RedisStore.connect(redis.url, { prefix, commandTimeoutMs: COMMAND_TIMEOUT_MS });
    stores.push(store);
    services.push(
      await startTestService({
        store: watchingLocks(store, i),
        accounts,
        clock: () => NOW,
        replayServer: replay,
        env: {
          LOG_LEVEL: 'silent',
          REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
          LEASE_TTL_MS: String(3 * COMMAND_TIMEOUT_MS),
          // Every home's read held at the gate at once: as many documents in flight as homes.
          ...(proxy ? { PORTAL_ORIGIN: proxy.origin, PORTAL_MAX_CONCURRENCY: String(Object.keys(HOMES).length) } : {}),
          ...env,
        },
      }),
    );
  }
}

/** Every cached home, alias and memo gone, as when their lifetime is over (Redis' own clock is not ours to move). */
async function expireCache(): Promise<void> {
  const raw = new Redis(redis.url);
  try {
    const keys = (await raw.keys(`${prefix}*`)).filter((k) => /^[^:]+:(entry|raw|alias|memo)/.test(k));
    if (keys.length > 0) await raw.del(...keys);
  } finally {
    raw.disconnect();
  }
}

/** One REST lookup on instance `instance % INSTANCES`. */
async function lookup(instance: number, key: string, account: string, zpid: string): Promise<Outcome> {
  const svc = services[instance % services.length]!;
  const r = await svc.get(`/v1/portal/property?zpid=${zpid}`, key);
  return {
    status: r.status,
    code: r.body?.error?.code ?? null,
    credits: r.status === 200 ? r.body.meta.credits : 0,
    cached: r.status === 200 ? r.body.meta.cached : null,
    requestId: r.headers.get('x-request-id'),
    account,
    zpid,
  };
}

/** Account name → the id seeding gave it. */
function accountIds(accounts: Record<string, AccountSeed>): Map<string, string> {
  const secret = services[0]!.config.apiKeySecret;
  return new Map(Object.entries(accounts).map(([name, a]) => [name, seededAccountId(hashApiKey(a.key, secret))]));
}

/** Checks that hold in every run: counters == ledger == credits answered, nothing left held. */
async function checkBooks(outcomes: Outcome[], ids: Map<string, string>): Promise<LedgerEntry[]> {
  const store = stores[0]!;
  const ledger = await store.ledger();
  const charged = outcomes.filter((o) => o.status === 200 && o.credits === 1);
  // Charged credits == ledger entries, entry for entry (by request id).
  expect(ledger).toHaveLength(charged.length);
  expect(new Set(ledger.map((e) => e.requestId))).toEqual(new Set(charged.map((o) => o.requestId)));
  expect(new Set(ledger.map((e) => e.reservationId)).size).toBe(ledger.length);
  // Per account: the ledger and the credits the account was answered agree.
  for (const [name, id] of ids) {
    const credits = outcomes.filter((o) => o.account === name).reduce((n, o) => n + o.credits, 0);
    expect(
      ledger.filter((e) => e.accountId === id),
      name,
    ).toHaveLength(credits);
  }
  return ledger;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function tally(outcomes: Outcome[]): Record<string, number> {
  const t: Record<string, number> = {};
  for (const o of outcomes) {
    const k = `${o.status}${o.code ? ` ${o.code}` : ''}${o.status === 200 ? (o.cached ? ' hit' : ' live') : ''}`;
    t[k] = (t[k] ?? 0) + 1;
  }
  return t;
}

// Hundreds of real requests per test: a bound for a machine whose cores are shared (a run under load
// passed 30 s), never an outcome.
describe('billing across several instances on one Redis (REST, replay site)', { timeout: 120_000 }, () => {
  it('hundreds of lookups of the same homes, arriving over time on 3 instances: one upstream read and one charge per home', async () => {
    const accounts: Record<string, AccountSeed> = {};
    for (let i = 0; i < 24; i++)
      accounts[`free${i}`] = { key: `e2e_free_key_${String(i).padStart(4, '0')}`, plan: 'free', allotment: 2 };
    for (let i = 0; i < 8; i++) {
      accounts[`paid${i}`] = {
        key: `e2e_paid_key_${String(i).padStart(4, '0')}`,
        plan: 'paid',
        included: 1,
        overage: true,
        overageRateUsd: 0.05,
        spendLimitUsd: 0.05,
      };
    }
    await cluster(accounts, { DAILY_LIVE_LOOKUP_BUDGET: '1000' });
    const names = Object.keys(accounts);
    const zpids = [...Object.keys(HOMES), ...BROKEN];

    // 360 requests, 2 ms apart: every home is asked for on every instance, before, during and after its read.
    const N = 360;
    const outcomes = await Promise.all(
      Array.from({ length: N }, async (_, i) => {
        await sleep(i * 2);
        const name = names[(i * 7) % names.length]!;
        // The instance varies independently of the home: each home is asked for on every instance.
        return lookup(Math.floor(i / 7), accounts[name]!.key, name, zpids[(i * 5) % zpids.length]!);
      }),
    );
    const ledger = await stores[0]!.ledger();
    const summary = { outcomes: tally(outcomes), upstreamRequests: replay!.requests.length, charged: ledger.length };
    console.info('[e2e/billing one-read]', JSON.stringify(summary));

    for (const o of outcomes) expect(o.status, JSON.stringify(o)).not.toBe(500);
    for (const o of outcomes.filter((x) => HOMES[x.zpid])) {
      expect([200, 402], JSON.stringify(o)).toContain(o.status);
      if (o.status === 402) expect(['credits_exhausted', 'spend_limit_reached']).toContain(o.code);
    }
    for (const o of outcomes.filter((x) => BROKEN.includes(x.zpid))) expect(o.status).not.toBe(200);
    await checkBooks(outcomes, accountIds(accounts));

    // One live lookup (charge) and one upstream read of the page per home, whoever asked and on whichever instance.
    for (const [zpid, path] of Object.entries(HOMES)) {
      const reads = replay!.requests.filter((r) => r.path === path).length;
      const charges = ledger.filter((e) => e.cacheKey === `zpid:${zpid}`).length;
      expect({ zpid, reads, charges }).toEqual({ zpid, reads: 1, charges: 1 });
    }
    expect(ledger).toHaveLength(Object.keys(HOMES).length);
  });

  it('a home asked for on other instances while it is being read is read and charged once', async () => {
    const accounts: Record<string, AccountSeed> = {
      a: { key: 'e2e_pair_key_0001', plan: 'free', allotment: 100 },
      b: { key: 'e2e_pair_key_0002', plan: 'free', allotment: 100 },
    };
    await cluster(accounts, {}, 0, true);
    const zpids = Object.keys(HOMES);
    // Per home: instance 0 first, its read held at the site; then instances 1 and 2, which find it being
    // read (each is refused the home's lock); only then does the site answer.
    const firsts = zpids.map((zpid) => lookup(0, accounts.a!.key, 'a', zpid));
    await proxy!.arrived(zpids.length);
    const others = zpids.flatMap((zpid) => [
      lookup(1, accounts.b!.key, 'b', zpid),
      lookup(2, accounts.b!.key, 'b', zpid),
    ]);
    await waitedFor(2 * zpids.length);
    proxy!.open();
    const outcomes = [...(await Promise.all(firsts)), ...(await Promise.all(others))];
    // The followers were served from the read they waited for: hits, no charge.
    for (const o of outcomes.filter((x) => x.account === 'b'))
      expect(o, JSON.stringify(o)).toMatchObject({ status: 200, cached: true, credits: 0 });
    const ledger = await stores[0]!.ledger();
    console.info(
      '[e2e/billing overlap]',
      JSON.stringify({ outcomes: tally(outcomes), upstreamRequests: replay!.requests.length, charged: ledger.length }),
    );
    for (const o of outcomes) expect(o.status, JSON.stringify(o)).toBe(200);
    await checkBooks(outcomes, accountIds(accounts));
    for (const [zpid, path] of Object.entries(HOMES)) {
      const reads = replay!.requests.filter((r) => r.path === path).length;
      const charges = ledger.filter((e) => e.cacheKey === `zpid:${zpid}`).length;
      expect({ zpid, reads, charges }).toEqual({ zpid, reads: 1, charges: 1 });
    }
  });

  it('rounds of concurrent lookups as the cache expires: no account over its allotment, credits == ledger == counters', async () => {
    const accounts: Record<string, AccountSeed> = {};
    for (let i = 0; i < 16; i++)
      accounts[`free${i}`] = { key: `e2e_rfree_key_${String(i).padStart(4, '0')}`, plan: 'free', allotment: 1 };
    for (let i = 0; i < 4; i++) {
      accounts[`paid${i}`] = {
        key: `e2e_rpaid_key_${String(i).padStart(4, '0')}`,
        plan: 'paid',
        included: 1,
        overage: true,
        overageRateUsd: 0.05,
        spendLimitUsd: 0.05,
      };
    }
    await cluster(accounts, { DAILY_LIVE_LOOKUP_BUDGET: '1000' }, 20);
    const names = Object.keys(accounts);
    const zpids = Object.keys(HOMES);
    const outcomes: Outcome[] = [];
    // Capacity is 16 × 1 + 4 × 2 = 24 lookups; 5 rounds of 10 homes ask for up to 50.
    for (let round = 0; round < 5; round++) {
      outcomes.push(
        ...(await Promise.all(
          Array.from({ length: 100 }, (_, i) => {
            const name = names[(i * 3 + round) % names.length]!;
            return lookup(i, accounts[name]!.key, name, zpids[(i * 7 + round) % zpids.length]!);
          }),
        )),
      );
      await expireCache(); // the cache's lifetime is over: the next round reads the homes again
    }
    console.info('[e2e/billing allotments]', JSON.stringify(tally(outcomes)));
    for (const o of outcomes) {
      expect([200, 402], JSON.stringify(o)).toContain(o.status);
      if (o.status === 402) expect(['credits_exhausted', 'spend_limit_reached']).toContain(o.code);
    }
    expect(outcomes.filter((o) => o.status === 402).length).toBeGreaterThan(0);
    const ids = accountIds(accounts);
    const ledger = await checkBooks(outcomes, ids);
    for (const [name, id] of ids) {
      const paid = name.startsWith('paid');
      const u = await stores[2]!.usage(id, paid ? NOW.toISOString().slice(0, 7) : 'lifetime');
      expect(u.reserved, name).toBe(0);
      expect(u.used, name).toBe(ledger.filter((e) => e.accountId === id).length);
      expect(u.used, name).toBeLessThanOrEqual(paid ? 2 : 1);
      expect(u.overageUsed, name).toBeLessThanOrEqual(paid ? 1 : 0);
    }
    // Demand was far above capacity: every account used what it had.
    expect(ledger).toHaveLength(24);
    expect((await stores[0]!.budgetUsage(DAY, 'service')) + (await stores[0]!.budgetUsage(DAY, 'paid'))).toBe(24);
  });

  it('the daily budgets are never exceeded under concurrent load', async () => {
    const accounts: Record<string, AccountSeed> = {};
    for (let i = 0; i < 10; i++)
      accounts[`free${i}`] = { key: `e2e_bfree_key_${String(i).padStart(4, '0')}`, plan: 'free', allotment: 1000 };
    for (let i = 0; i < 10; i++)
      accounts[`paid${i}`] = { key: `e2e_bpaid_key_${String(i).padStart(4, '0')}`, plan: 'paid', included: 1000 };
    await cluster(accounts, { DAILY_LIVE_LOOKUP_BUDGET: '3', PAID_DAILY_LIVE_LOOKUP_BUDGET: '2' });
    const names = Object.keys(accounts);
    const zpids = Object.keys(HOMES);
    const outcomes = await Promise.all(
      Array.from({ length: 240 }, (_, i) => {
        const name = names[(i * 3) % names.length]!;
        return lookup(i, accounts[name]!.key, name, zpids[(i * 7) % zpids.length]!);
      }),
    );
    for (const o of outcomes) {
      expect([200, 503], JSON.stringify(o)).toContain(o.status);
      if (o.status === 503) expect(o.code).toBe('live_lookups_capped');
    }
    const ids = accountIds(accounts);
    const ledger = await checkBooks(outcomes, ids);
    const freeIds = new Set(names.filter((n) => n.startsWith('free')).map((n) => ids.get(n)!));
    const freeCharges = ledger.filter((e) => freeIds.has(e.accountId)).length;
    const paidCharges = ledger.length - freeCharges;
    expect(await stores[1]!.budgetUsage(DAY, 'service')).toBe(freeCharges);
    expect(await stores[1]!.budgetUsage(DAY, 'paid')).toBe(paidCharges);
    expect(freeCharges).toBeLessThanOrEqual(3);
    expect(paidCharges).toBeLessThanOrEqual(2);
    // Demand far above the budgets: both are used up, and the rest was refused.
    expect(freeCharges).toBe(3);
    expect(paidCharges).toBe(2);
    expect(outcomes.filter((o) => o.code === 'live_lookups_capped').length).toBeGreaterThan(0);
  });
});
