// creditsAvailable (the cost preview's meta.credits_available) says exactly how many reservations the
// store would grant now, one after another: checked against the store's own reserve (the memory
// store's decision and the Redis script), for each plan term that limits it: included lookups left,
// lookups held in flight, overage up to a spend limit, a payment failing, the daily budget, none.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditsAvailable, reserveRequest } from '../../src/accounts/index.js';
import { loadConfig, type Config } from '../../src/config.js';
import { MemoryStore, type Account, type Store } from '../../src/store/index.js';
import { RedisStore } from '../../src/store/redis.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';

const NOW = new Date('2026-11-23T12:00:00Z');
/** Past this many grants the store is taken to have no limit. */
const PROBE = 60;

const account = (over: Partial<Account>): Account => ({
  id: `acct-${randomUUID().slice(0, 8)}`,
  keyHash: 'h',
  keyPrefix: 'test_',
  plan: 'free',
  allotment: 0,
  included: 0,
  overage: false,
  overageRateUsd: 0,
  spendLimitUsd: null,
  paymentFailing: false,
  revoked: false,
  createdAt: NOW.toISOString(),
  label: null,
  ...over,
});

interface Case {
  name: string;
  account: Partial<Account>;
  budgets?: { free?: number; paid?: number };
  /** Lookups charged before, and reservations still held (in flight). */
  committed: number;
  held: number;
  expected: number | null;
}

const CASES: Case[] = [
  {
    name: 'free: the allotment left, less what is in flight',
    account: { plan: 'free', allotment: 5 },
    committed: 2,
    held: 1,
    expected: 2,
  },
  { name: 'free, used up', account: { plan: 'free', allotment: 2 }, committed: 2, held: 0, expected: 0 },
  {
    name: "free: the service's daily budget is tighter",
    account: { plan: 'free', allotment: 10 },
    budgets: { free: 4 },
    committed: 2,
    held: 0,
    expected: 2,
  },
  { name: 'paid, no overage', account: { plan: 'paid', included: 3 }, committed: 1, held: 0, expected: 2 },
  {
    name: 'paid: overage up to the spend limit',
    account: { plan: 'paid', included: 3, overage: true, overageRateUsd: 0.05, spendLimitUsd: 0.12 },
    committed: 3,
    held: 0,
    expected: 2,
  },
  {
    name: 'paid: overage in flight counts against the spend limit',
    account: { plan: 'paid', included: 2, overage: true, overageRateUsd: 0.05, spendLimitUsd: 0.2 },
    committed: 3,
    held: 1,
    expected: 2,
  },
  {
    name: 'paid: included left and in flight, then overage',
    account: { plan: 'paid', included: 4, overage: true, overageRateUsd: 0.05, spendLimitUsd: 0.1 },
    committed: 1,
    held: 2,
    expected: 3,
  },
  {
    name: 'paid: overage without a spend limit',
    account: { plan: 'paid', included: 2, overage: true, overageRateUsd: 0.05 },
    committed: 5,
    held: 0,
    expected: null,
  },
  {
    name: 'paid: overage without a limit, within the paid daily budget',
    account: { plan: 'paid', included: 2, overage: true, overageRateUsd: 0.05 },
    budgets: { paid: 6 },
    committed: 1,
    held: 1,
    expected: 4,
  },
  {
    name: 'paid: a failing payment pauses overage',
    account: { plan: 'paid', included: 3, overage: true, overageRateUsd: 0.05, paymentFailing: true },
    committed: 1,
    held: 0,
    expected: 2,
  },
];

/** Reserves `n` (committing `commit` of them); then counts the further grants, up to PROBE. */
async function grantsAfter(
  store: Store,
  acct: Account,
  config: Config,
  c: Case,
): Promise<{ available: number | null; granted: number }> {
  let seq = 0;
  const reserve = () => store.reserve(reserveRequest(acct, config, NOW, `${acct.id}-${seq++}`));
  for (let i = 0; i < c.committed + c.held; i++) {
    const id = `${acct.id}-${seq}`;
    expect((await reserve()).ok, `set-up reservation ${i}`).toBe(true);
    if (i < c.committed) {
      expect(
        await store.commit({
          reservationId: id,
          accountId: acct.id,
          cacheKey: `zpid:${i}`,
          requestId: 'r',
          kind: 'included',
          at: NOW.toISOString(),
        }),
      ).toBe(true);
    }
  }
  const available = await creditsAvailable(store, acct, config, NOW);
  let granted = 0;
  while (granted < PROBE && (await reserve()).ok) granted++;
  return { available, granted };
}

const configFor = (c: Case): Config => ({
  ...loadConfig({ LOG_LEVEL: 'silent' }),
  dailyLiveLookupBudget: c.budgets?.free ?? null,
  paidDailyLiveLookupBudget: c.budgets?.paid ?? null,
});

let redis: RedisServer;
const opened: RedisStore[] = [];
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
  await disposeRedisServer(redis);
});

const stores: Array<[string, () => Promise<Store>]> = [
  ['memory', async () => new MemoryStore(() => NOW.getTime())],
  [
    'redis',
    async () => {
      const s = await RedisStore.connect(redis.url, { prefix: `ca${randomUUID().slice(0, 6)}:` });
      opened.push(s);
      return s;
    },
  ],
];

describe.each(stores)('creditsAvailable on the %s store', (_kind, open) => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const store = await open();
    const { available, granted } = await grantsAfter(store, account(c.account), configFor(c), c);
    expect(available).toBe(c.expected);
    expect(granted, 'the store granted exactly what was said to be available').toBe(c.expected ?? PROBE);
  });
});
