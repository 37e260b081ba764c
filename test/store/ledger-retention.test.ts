// The billing ledger keeps LEDGER_RETENTION_DAYS of charges (issue 25, item 4: it was never trimmed, and
// each waiting chunk's re-run read all of it). Each charge trims what is older than the retention as it
// is written: on Redis by XADD MINID (about: whole stream nodes, so the test writes a few nodes' worth),
// in memory by the charge's time. What the retention keeps is untouched, and a charge is still found
// under its request (chargesOf) while kept.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryStore } from '../../src/store/memory.js';
import { RedisStore } from '../../src/store/redis.js';
import type { Store } from '../../src/store/index.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { account, ledgerEntry, req } from './store-contract.js';

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => disposeRedisServer(redis));

/** Commits `n` charges of a fresh account, one after the other, at `at()`. */
async function charge(store: Store, n: number, at: () => string): Promise<string> {
  const a = account({ id: `acct_${randomUUID().slice(0, 8)}` });
  await store.putAccount(a);
  for (let i = 0; i < n; i += 1) {
    const r = req(a.id, { included: 10_000 });
    expect((await store.reserve(r)).ok).toBe(true);
    expect(await store.commit(ledgerEntry(r.reservationId, a.id, { requestId: `req-${i}`, at: at() }))).toBe(true);
  }
  return a.id;
}

it('on Redis, charges past the retention are trimmed as new ones come; a year of them is kept', async () => {
  const keeps = await RedisStore.connect(redis.url, { prefix: `lk${randomUUID().slice(0, 6)}:` });
  const trims = await RedisStore.connect(redis.url, { prefix: `lt${randomUUID().slice(0, 6)}:`, ledgerRetentionMs: 0 });
  try {
    const now = () => new Date().toISOString();
    const kept = await charge(keeps, 350, now);
    expect(await keeps.ledger(kept)).toHaveLength(350);
    // A retention of nothing: every whole stream node written before the last charge goes.
    const trimmed = await charge(trims, 350, now);
    const left = await trims.ledger(trimmed);
    expect(left.length).toBeLessThan(350);
    expect(left.at(-1)).toMatchObject({ requestId: 'req-349' });
    expect(await trims.chargesOf('req-349')).toHaveLength(1);
  } finally {
    await keeps.close();
    await trims.close();
  }
});

it('in memory, charges older than the retention are trimmed by their time', async () => {
  let now = Date.parse('2026-01-01T00:00:00.000Z');
  const day = 86_400_000;
  const store = new MemoryStore(() => now, undefined, 30 * day);
  const id = await charge(store, 3, () => new Date(now).toISOString());
  now += 29 * day;
  await charge(store, 1, () => new Date(now).toISOString());
  expect(await store.ledger(id)).toHaveLength(3);
  now += 2 * day;
  await charge(store, 1, () => new Date(now).toISOString());
  expect(await store.ledger(id)).toEqual([]);
  expect(await store.ledger()).toHaveLength(2);
});
