// Hundreds of concurrent reserve/commit/release calls on one real redis-server, spread across
// several RedisStore instances (= several service instances): billing stays exact.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../../src/store/redis.js';
import type { ReserveRequest, ReserveResult } from '../../src/store/types.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { ledgerEntry, req } from './store-contract.js';

const INSTANCES = 4;
let server: RedisServer;

beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await disposeRedisServer(server);
});

async function instances(): Promise<{ stores: RedisStore[]; close: () => Promise<void> }> {
  const prefix = `cc${randomUUID().slice(0, 8)}:`;
  const stores = await Promise.all(
    Array.from({ length: INSTANCES }, () => RedisStore.connect(server.url, { prefix, commandTimeoutMs: 5000 })),
  );
  return {
    stores,
    close: async () => {
      await Promise.all(stores.map((s) => s.close()));
    },
  };
}

const jitter = () => new Promise((r) => setTimeout(r, Math.floor(Math.random() * 5)));

describe('RedisStore under concurrency, several instances on one Redis', () => {
  it('free accounts never go over their allotment; charged == ledger', async () => {
    const { stores, close } = await instances();
    try {
      const accounts = Array.from({ length: 12 }, (_, i) => `acct_free_${i}`);
      const allotment = 7;
      const N = 600;
      let commits = 0;
      let releases = 0;
      let okReserves = 0;
      const committedIds = new Set<string>();
      await Promise.all(
        Array.from({ length: N }, async (_, i) => {
          const store = stores[i % INSTANCES]!;
          const acct = accounts[i % accounts.length]!;
          const r = req(acct, { included: allotment });
          // A retried reserve of the same id, through another instance, must hold only once.
          const [res, again] = await Promise.all([store.reserve(r), stores[(i + 1) % INSTANCES]!.reserve(r)]);
          expect(again).toEqual(res);
          if (!res.ok) {
            expect(res).toMatchObject({ ok: false, reason: 'credits_exhausted' });
            return;
          }
          okReserves++;
          await jitter();
          if (i % 4 === 0) {
            expect(await stores[(i + 2) % INSTANCES]!.release(r.reservationId)).toBe(true);
            releases++;
          } else {
            expect(await store.commit(ledgerEntry(r.reservationId, acct, { requestId: `req_${i}` }))).toBe(true);
            commits++;
            committedIds.add(r.reservationId);
          }
        }),
      );
      const ledger = await stores[0]!.ledger();
      expect(okReserves).toBe(commits + releases);
      expect(ledger).toHaveLength(commits);
      expect(new Set(ledger.map((e) => e.reservationId))).toEqual(committedIds);
      let used = 0;
      for (const acct of accounts) {
        const u = await stores[1]!.usage(acct, 'lifetime');
        expect(u.reserved).toBe(0);
        expect(u.used).toBeLessThanOrEqual(allotment);
        expect(u.used).toBe(ledger.filter((e) => e.accountId === acct).length);
        used += u.used;
      }
      expect(used).toBe(commits);
      // Demand (50 per account) is far above the allotment: every account ended up refused at its limit.
      expect(commits).toBeGreaterThan(accounts.length * (allotment - 3));
    } finally {
      await close();
    }
  });

  it('the daily budget is never exceeded, not even by one', async () => {
    const { stores, close } = await instances();
    try {
      const cap = 37;
      const day = '2026-04-01';
      let maxSeen = 0;
      let oks = 0;
      let released = 0;
      const watcher = (async () => {
        for (let i = 0; i < 40; i++) {
          maxSeen = Math.max(maxSeen, await stores[3]!.budgetUsage(day, 'paid'));
          await new Promise((r) => setTimeout(r, 2));
        }
      })();
      const results: ReserveResult[] = await Promise.all(
        Array.from({ length: 400 }, async (_, i) => {
          const r = req(`acct_paid_${i % 25}`, {
            period: '2026-04',
            included: 5,
            overage: { rateMicroUsd: 1000, spendLimitMicroUsd: null },
            budget: { day, scope: 'paid', cap },
          });
          const res = await stores[i % INSTANCES]!.reserve(r);
          if (res.ok) {
            oks++;
            await jitter();
            // Some give their slot back (failed lookups); the freed slot may be taken by others.
            if (i % 5 === 0) {
              expect(await stores[(i + 1) % INSTANCES]!.release(r.reservationId)).toBe(true);
              released++;
            } else {
              expect(await stores[(i + 3) % INSTANCES]!.commit(ledgerEntry(r.reservationId, r.accountId))).toBe(true);
            }
          }
          return res;
        }),
      );
      await watcher;
      const refused = results.filter((r) => !r.ok);
      expect(refused.length).toBeGreaterThan(300);
      for (const r of refused) expect(r).toEqual({ ok: false, reason: 'live_lookups_capped' });
      const ledger = await stores[0]!.ledger();
      expect(maxSeen).toBeLessThanOrEqual(cap);
      expect(oks - released).toBe(ledger.length);
      expect(await stores[2]!.budgetUsage(day, 'paid')).toBe(ledger.length);
      expect(ledger.length).toBeLessThanOrEqual(cap);
      expect(ledger.length).toBeGreaterThan(cap - 10);
    } finally {
      await close();
    }
  });

  it('exactly cap reservations out of 400 concurrent ones draw on the daily budget', async () => {
    const { stores, close } = await instances();
    try {
      const cap = 29;
      const results = await Promise.all(
        Array.from({ length: 400 }, (_, i) =>
          stores[i % INSTANCES]!.reserve(
            req(`acct_svc_${i % 40}`, { included: 50, budget: { day: '2026-04-04', scope: 'service', cap } }),
          ),
        ),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(cap);
      expect(await stores[0]!.budgetUsage('2026-04-04', 'service')).toBe(cap);
      expect(await stores[0]!.budgetUsage('2026-04-04', 'paid')).toBe(0);
    } finally {
      await close();
    }
  });

  it('the spend limit holds exactly under concurrency', async () => {
    const { stores, close } = await instances();
    try {
      const acct = 'acct_paid_limit';
      // 10 included, then $0.05 each up to $1.00 → exactly 20 overage lookups.
      const make = (): ReserveRequest =>
        req(acct, {
          period: '2026-04',
          included: 10,
          overage: { rateMicroUsd: 50_000, spendLimitMicroUsd: 1_000_000 },
          budget: { day: '2026-04-02', scope: 'paid', cap: null },
        });
      const results = await Promise.all(
        Array.from({ length: 200 }, async (_, i) => {
          const r = make();
          const res = await stores[i % INSTANCES]!.reserve(r);
          if (res.ok) {
            await jitter();
            expect(await stores[(i + 1) % INSTANCES]!.commit(ledgerEntry(r.reservationId, acct))).toBe(true);
          }
          return res;
        }),
      );
      expect(results.filter((r) => r.ok && r.kind === 'included')).toHaveLength(10);
      expect(results.filter((r) => r.ok && r.kind === 'overage')).toHaveLength(20);
      for (const r of results.filter((x) => !x.ok))
        expect(r).toMatchObject({ ok: false, reason: 'spend_limit_reached' });
      expect(await stores[0]!.usage(acct, '2026-04')).toEqual({ used: 30, reserved: 0, overageUsed: 20 });
      const ledger = await stores[0]!.ledger(acct);
      expect(ledger.filter((e) => e.kind === 'overage')).toHaveLength(20);
      expect(ledger).toHaveLength(30);
    } finally {
      await close();
    }
  });

  it('with failures (releases) mixed in, included lookups are charged first and the spend limit holds', async () => {
    const { stores, close } = await instances();
    try {
      const acct = 'acct_paid_failures';
      // 10 included, then $0.05 each up to $1.00 → at most 20 overage lookups; every third lookup fails.
      const results = await Promise.all(
        Array.from({ length: 300 }, async (_, i) => {
          const r = req(acct, {
            period: '2026-04',
            included: 10,
            overage: { rateMicroUsd: 50_000, spendLimitMicroUsd: 1_000_000 },
            budget: { day: '2026-04-05', scope: 'paid', cap: null },
          });
          const res = await stores[i % INSTANCES]!.reserve(r);
          if (res.ok) {
            await jitter();
            if (i % 3 === 0) expect(await stores[(i + 1) % INSTANCES]!.release(r.reservationId)).toBe(true);
            else expect(await stores[(i + 2) % INSTANCES]!.commit(ledgerEntry(r.reservationId, acct))).toBe(true);
          }
          return res;
        }),
      );
      for (const r of results.filter((x) => !x.ok))
        expect(r).toMatchObject({ ok: false, reason: 'spend_limit_reached' });
      const u = await stores[0]!.usage(acct, '2026-04');
      const ledger = await stores[1]!.ledger(acct);
      expect(u.reserved).toBe(0);
      expect(ledger).toHaveLength(u.used);
      expect(ledger.filter((e) => e.kind === 'overage')).toHaveLength(u.overageUsed);
      expect(u.overageUsed).toBeLessThanOrEqual(20);
      // Overage only once all 10 included lookups are charged: failed ones left their credits.
      expect(u.used).toBeGreaterThan(10);
      expect(u.used - u.overageUsed).toBe(10);
    } finally {
      await close();
    }
  });

  it('racing commit, release and sweep on one reservation: exactly one wins', async () => {
    const { stores, close } = await instances();
    try {
      const acct = 'acct_race';
      const rs = Array.from({ length: 300 }, () =>
        req(acct, { included: 1000, ttlMs: 1, budget: { day: '2026-04-03', scope: 'service', cap: 1000 } }),
      );
      for (const r of rs) expect((await stores[0]!.reserve(r)).ok).toBe(true);
      let wins = 0;
      let commitWins = 0;
      const sweeps: Promise<number>[] = [];
      await Promise.all(
        rs.map(async (r, i) => {
          if (i % 50 === 0) sweeps.push(stores[(i / 50) % INSTANCES]!.sweep());
          const outcomes = await Promise.all([
            stores[i % INSTANCES]!.commit(ledgerEntry(r.reservationId, acct)),
            stores[(i + 1) % INSTANCES]!.commit(ledgerEntry(r.reservationId, acct)),
            stores[(i + 2) % INSTANCES]!.release(r.reservationId),
          ]);
          const n = outcomes.filter(Boolean).length;
          expect(n).toBeLessThanOrEqual(1);
          wins += n;
          if (outcomes[0] || outcomes[1]) commitWins++;
        }),
      );
      const swept = (await Promise.all(sweeps)).reduce((a, b) => a + b, 0) + (await stores[3]!.sweep());
      expect(wins + swept).toBe(rs.length);
      const ledger = await stores[0]!.ledger(acct);
      expect(ledger).toHaveLength(commitWins);
      expect(new Set(ledger.map((e) => e.reservationId)).size).toBe(commitWins);
      expect(await stores[1]!.usage(acct, 'lifetime')).toEqual({ used: commitWins, reserved: 0, overageUsed: 0 });
      expect(await stores[2]!.budgetUsage('2026-04-03', 'service')).toBe(commitWins);
    } finally {
      await close();
    }
  });

  it('single flight: one lock holder among many instances', async () => {
    const { stores, close } = await instances();
    try {
      const got = await Promise.all(
        Array.from({ length: 100 }, (_, i) => stores[i % INSTANCES]!.tryLock('zpid:42', `tok_${i}`, 30_000)),
      );
      expect(got.filter(Boolean)).toHaveLength(1);
      const owner = got.indexOf(true);
      await Promise.all(stores.map((s, i) => s.unlock('zpid:42', `tok_${(owner + 1 + i) % 100}`)));
      expect(await stores[0]!.tryLock('zpid:42', 'late', 30_000)).toBe(false);
      await stores[2]!.unlock('zpid:42', `tok_${owner}`);
      expect(await stores[0]!.tryLock('zpid:42', 'late', 30_000)).toBe(true);
    } finally {
      await close();
    }
  });
});
