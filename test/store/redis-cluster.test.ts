// The Redis store and the rate limits on a real 3-master Redis Cluster (REDIS_CLUSTER_NODES): the
// store contract suite as on one server, reads over many homes spread across the masters, lease
// renewals across nodes, account-change notices across instances, exact billing under concurrency
// across several store instances, the shared per-key limits, a slot moved to another master (resharding)
// and a master that dies.
import { randomUUID } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisRateLimiter } from '../../src/accounts/rate-limit.js';
import { createRedisClient, keySlot } from '../../src/store/redis-connection.js';
import { RedisStore, redisKeys } from '../../src/store/redis.js';
import { freePort } from '../helpers/redis-server.js';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster.js';
import { account, entry, ledgerEntry, rawJsonOf, req, storeContract } from './store-contract.js';

let cluster: RedisCluster;
let raw: Cluster;
beforeAll(async () => {
  cluster = await startRedisCluster();
  raw = createRedisClient({ redisUrl: null, redisClusterNodes: cluster.nodeList }, {}) as Cluster;
}, 60_000);
afterAll(async () => {
  raw?.disconnect();
  await cluster?.stop();
});

const target = () => ({ redisUrl: null, redisClusterNodes: cluster.nodeList });

let prefix = '';
storeContract(
  'redis cluster',
  () => RedisStore.connect(target(), { prefix: (prefix = `t${randomUUID().slice(0, 8)}:`) }),
  {
    async writeEntryText(key, text) {
      await raw.set(redisKeys(prefix, true).entry(key), text, 'PX', 60_000);
    },
    readRawValue: (key) => raw.getBuffer(redisKeys(prefix, true).raw(key)),
    async writeRawValue(key, value) {
      if (value === null) await raw.del(redisKeys(prefix, true).raw(key));
      else await raw.set(redisKeys(prefix, true).raw(key), value, 'PX', 60_000);
    },
    async expireEntry(key, ttlMs) {
      for (const k of [redisKeys(prefix, true).entry(key), redisKeys(prefix, true).raw(key)]) {
        const left = await raw.pttl(k);
        expect(left).toBeGreaterThan(0);
        expect(left).toBeLessThanOrEqual(ttlMs);
        await raw.pexpire(k, 0);
      }
    },
    // As on one server (redis.test.ts), but the prefix's keys are found on every master.
    async elapse(ms) {
      for (const node of raw.nodes('master')) {
        let cursor = '0';
        do {
          const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
          cursor = next;
          for (const k of keys) {
            const left = await node.pttl(k);
            if (left > 0) await (left <= ms ? node.del(k) : node.pexpire(k, left - ms));
          }
        } while (cursor !== '0');
      }
      const byExpiry = redisKeys(prefix, true).reservationsByExpiry;
      const held = await raw.zrange(byExpiry, 0, '-1', 'WITHSCORES');
      for (let i = 0; i < held.length; i += 2) {
        const at = String(Number(held[i + 1]) - ms);
        await raw.zadd(byExpiry, at, held[i]!);
        const record = redisKeys(prefix, true).reservation(held[i]!);
        if (await raw.exists(record)) await raw.hset(record, 'expires_at', at);
      }
    },
  },
);

describe('RedisStore on a cluster', () => {
  it('computes the slots the cluster does (hash tags included)', async () => {
    const node = raw.nodes('master')[0]!;
    for (const key of [
      'pl:entry4:{zpid:1}',
      'pl:raw4:{zpid:1}',
      'pl:{bill}:ledger',
      'a{}b',
      'a{}{b}',
      '{x',
      'héllo',
      'pl:alias:addr:1 main st',
    ]) {
      expect(keySlot(key)).toBe(await node.cluster('KEYSLOT', key));
    }
  });

  it('reads many homes at once, spread over every master, in order (entries, entries with raw, aliases)', async () => {
    const p = `g${randomUUID().slice(0, 8)}:`;
    const store = await RedisStore.connect(target(), { prefix: p });
    try {
      const zpids = Array.from({ length: 120 }, (_, i) => String(1000 + i));
      const kept = zpids.filter((_, i) => i % 3 !== 0);
      for (const z of kept) {
        await store.putEntry(`zpid:${z}`, entry(z), rawJsonOf(z), 60_000);
        await store.putAlias(`addr:${z}`, `zpid:${z}`, 60_000);
      }
      // The homes' entries live on all three masters.
      const slots = kept.map((z) => keySlot(redisKeys(p, true).entry(`zpid:${z}`)));
      const owners = new Set(await Promise.all(slots.map(async (s) => (raw.slots[s] ?? []).join())));
      expect(owners.size).toBe(3);

      const keys = zpids.map((z) => `zpid:${z}`);
      const entries = await store.getEntries(keys);
      expect(entries.map((e) => e?.record ?? null)).toEqual(
        zpids.map((z, i) => (i % 3 === 0 ? null : entry(z).record)),
      );
      const withRaw = await store.getEntriesWithRaw(keys);
      expect(withRaw.map((e) => e?.rawJson ?? null)).toEqual(zpids.map((z, i) => (i % 3 === 0 ? null : rawJsonOf(z))));
      const aliases = await store.getAliases(zpids.map((z) => `addr:${z}`));
      expect(aliases).toEqual(zpids.map((z, i) => (i % 3 === 0 ? null : `zpid:${z}`)));
    } finally {
      await store.close();
    }
  });

  it('renews locks and idempotency claims held on different masters; one lost is reported', async () => {
    const p = `r${randomUUID().slice(0, 8)}:`;
    const store = await RedisStore.connect(target(), { prefix: p });
    try {
      const locks = Array.from({ length: 30 }, (_, i) => ({ key: `zpid:${i}`, token: `tok${i}` }));
      for (const l of locks) expect(await store.tryLock(l.key, l.token, 5_000)).toBe(true);
      await raw.del(redisKeys(p, true).lock('zpid:7'));
      expect(await store.renewLocks(locks, 60_000)).toEqual(['zpid:7']);
      expect(await raw.pttl(redisKeys(p, true).lock('zpid:20'))).toBeGreaterThan(30_000);

      const refs = Array.from({ length: 10 }, (_, i) => ({ accountId: 'acct_i', key: `idem-${i}`, token: `t${i}` }));
      for (const r of refs) expect((await store.claimIdempotency(r, 'h', 5_000)).state).toBe('claimed');
      expect(
        await store.renewIdempotency([...refs, { accountId: 'acct_i', key: 'never', token: 'tx' }], 60_000),
      ).toEqual(['tx']);
    } finally {
      await store.close();
    }
  });

  it('an account written through one instance is announced to another (pub/sub across the cluster)', async () => {
    const p = `w${randomUUID().slice(0, 8)}:`;
    const [a, b] = await Promise.all([
      RedisStore.connect(target(), { prefix: p }),
      RedisStore.connect(target(), { prefix: p }),
    ]);
    try {
      let subscribed!: () => void;
      const ready = new Promise<void>((r) => (subscribed = r));
      let heard!: () => void;
      const notice = new Promise<void>((r) => (heard = r));
      let calls = 0;
      const stop = b.watchAccounts(() => (++calls === 1 ? subscribed() : heard()));
      await ready; // the first call: subscribed
      await a.putAccount(account({ id: 'acct_pub' }));
      await notice;
      expect(await b.getAccount('acct_pub')).toMatchObject({ id: 'acct_pub' });
      stop();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('finds the accounts node emptied (a store reset): the reset handlers run once, then it serves again', async () => {
    const p = `e${randomUUID().slice(0, 8)}:`;
    const store = await RedisStore.connect(target(), { prefix: p });
    try {
      let resets = 0;
      store.onReset(async () => {
        resets++;
        await store.putAccount(account({ id: 'acct_reseeded' }));
      });
      await store.putAccount(account({ id: 'acct_before' }));
      await store.ping(); // the epoch this instance works from
      const owner = raw.slots[keySlot(redisKeys(p, true).epoch)]![0];
      const node = raw.nodes('master').find((n) => `${n.options.host}:${n.options.port}` === owner)!;
      await node.flushall();
      await store.ping();
      expect(resets).toBe(1);
      expect(await store.getAccount('acct_before')).toBeNull();
      expect(await store.getAccount('acct_reseeded')).toMatchObject({ id: 'acct_reseeded' });
      await store.ping();
      expect(resets).toBe(1);
    } finally {
      await store.close();
    }
  });

  it('never hangs when no node answers: connect returns, calls fail with store_unavailable', async () => {
    const store = await RedisStore.connect(
      { redisUrl: null, redisClusterNodes: [`127.0.0.1:${await freePort()}`] },
      { prefix: 'down:', startupWaitMs: 200 },
    );
    try {
      expect(store.ready).toBe(false);
      await expect(store.ping()).rejects.toMatchObject({ code: 'store_unavailable' });
      await expect(store.getEntries(['zpid:1', 'zpid:2'])).rejects.toMatchObject({ code: 'store_unavailable' });
      await expect(store.reserve(req('a'))).rejects.toMatchObject({ code: 'store_unavailable' });
    } finally {
      await store.close();
    }
  });

  it('billing stays exact under concurrency across several instances: no account over its allotment, no daily budget over its cap', async () => {
    const p = `cc${randomUUID().slice(0, 8)}:`;
    const stores = await Promise.all(
      Array.from({ length: 4 }, () => RedisStore.connect(target(), { prefix: p, commandTimeoutMs: 5000 })),
    );
    try {
      const accounts = Array.from({ length: 10 }, (_, i) => `acct_free_${i}`);
      const allotment = 7;
      const committed = new Set<string>();
      await Promise.all(
        Array.from({ length: 500 }, async (_, i) => {
          const acct = accounts[i % accounts.length]!;
          const r = req(acct, { included: allotment });
          // A retried reserve of the same id, through another instance, holds only once.
          // (A refusal's figures are of its moment; a slot freed between the two may let one of them hold.)
          const [res, again] = await Promise.all([stores[i % 4]!.reserve(r), stores[(i + 1) % 4]!.reserve(r)]);
          if (res.ok && again.ok) expect(again).toEqual(res);
          if (!res.ok && !again.ok) return;
          if (i % 4 === 0) {
            expect(await stores[(i + 2) % 4]!.release(r.reservationId)).toBe(true);
          } else {
            expect(await stores[(i + 3) % 4]!.commit(ledgerEntry(r.reservationId, acct))).toBe(true);
            committed.add(r.reservationId);
          }
        }),
      );
      const ledger = await stores[0]!.ledger();
      expect(new Set(ledger.map((e) => e.reservationId))).toEqual(committed);
      for (const acct of accounts) {
        const u = await stores[1]!.usage(acct, 'lifetime');
        expect(u.reserved).toBe(0);
        expect(u.used).toBeLessThanOrEqual(allotment);
        expect(u.used).toBe(ledger.filter((e) => e.accountId === acct).length);
      }
      // Demand (50 per account) is far above the allotment: every account reached its limit.
      expect(ledger.length).toBeGreaterThan(accounts.length * (allotment - 3));

      // Exactly cap reservations out of 400 concurrent ones draw on a daily budget.
      const cap = 29;
      const results = await Promise.all(
        Array.from({ length: 400 }, (_, i) =>
          stores[i % 4]!.reserve(
            req(`acct_svc_${i % 40}`, { included: 50, budget: { day: '2026-04-04', scope: 'service', cap } }),
          ),
        ),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(cap);
      expect(await stores[3]!.budgetUsage('2026-04-04', 'service')).toBe(cap);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });
});

describe('RedisRateLimiter on a cluster', () => {
  it('two instances share one window and one set of live slots per account', async () => {
    const logger = pino({ level: 'silent' });
    const p = `rl${randomUUID().slice(0, 8)}:`;
    const make = () =>
      new RedisRateLimiter(
        { perMinute: 5, maxLive: 1 },
        {
          url: null,
          clusterNodes: cluster.nodeList,
          prefix: p,
          commandTimeoutMs: 2000,
          leaseTtlMs: 60_000,
          logger,
        },
      );
    const [one, two] = [make(), make()];
    try {
      const takes = [];
      for (let i = 0; i < 4; i++) takes.push(await one.take('acct_a', 1), await two.take('acct_a', 1));
      expect(takes.map((t) => t.allowed)).toEqual([true, true, true, true, true, false, false, false]);
      expect(takes[4]!.window).toMatchObject({ limit: 5, remaining: 0 });
      // Another account (most likely another slot) has its own window.
      expect((await two.take('acct_b', 5)).allowed).toBe(true);

      const release = await one.holdLive('acct_a');
      expect(typeof release).toBe('function');
      expect(await two.holdLive('acct_a')).toBeNull();
      release!();
      const again = await (async () => {
        for (let i = 0; i < 100; i++) {
          const r = await two.holdLive('acct_a');
          if (r) return r;
          await new Promise((res) => setTimeout(res, 20));
        }
        return null;
      })();
      expect(typeof again).toBe('function');
      again!();
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });
});

describe('a slot moves to another master (resharding)', () => {
  it('reads and writes of a home follow it (ASK while it migrates, MOVED once moved); billing fails fast while {bill} migrates, then is exact', async () => {
    const p = `m${randomUUID().slice(0, 8)}:`;
    const store = await RedisStore.connect(target(), { prefix: p });
    const conns = cluster.ports.map((port) => new Redis(port, '127.0.0.1'));
    try {
      const ids = (await Promise.all(conns.map((c) => c.call('CLUSTER', 'MYID')))) as string[];
      // Not one of the homes the next test places by slot (0..199): this one's slot changes owner.
      const home = 'zpid:90077';
      const a = account();
      await store.putAccount(a);
      await store.putEntry(home, entry('90077'), rawJsonOf('90077'), 60_000);
      const first = req(a.id);
      expect(await store.reserve(first)).toMatchObject({ ok: true });
      // The home's slot and the billing slot each go to the next master, their keys moved, the move not yet final.
      const moves = [keySlot(redisKeys(p, true).entry(home)), keySlot(redisKeys(p, true).ledger)].map((slot) => {
        const from = cluster.ports.indexOf(Number(raw.slots[slot]![0]!.split(':')[1]));
        return { slot, from, to: (from + 1) % conns.length };
      });
      for (const { slot, from, to } of moves) {
        await conns[to]!.call('CLUSTER', 'SETSLOT', slot, 'IMPORTING', ids[from]!);
        await conns[from]!.call('CLUSTER', 'SETSLOT', slot, 'MIGRATING', ids[to]!);
        for (;;) {
          const keys = (await conns[from]!.call('CLUSTER', 'GETKEYSINSLOT', slot, 100)) as string[];
          if (keys.length === 0) break;
          await conns[from]!.call('MIGRATE', '127.0.0.1', cluster.ports[to]!, '', 0, 5000, 'KEYS', ...keys);
        }
      }
      const readsAndWrites = async () => {
        expect(await store.getEntries([home, 'zpid:90078'])).toEqual([entry('90077'), null]);
        expect(await store.getEntriesWithRaw([home])).toEqual([{ entry: entry('90077'), rawJson: rawJsonOf('90077') }]);
        await store.putEntry(home, entry('90077'), rawJsonOf('90077'), 60_000);
      };
      // ASK: the keys are on the importing master, the slot still the old one's.
      await readsAndWrites();
      // A script over keys of a migrating slot, some not there yet (a new reservation, the ledger's first
      // entry), is refused by Redis itself (TRYAGAIN) until the move ends: store_unavailable, at once.
      await expect(store.reserve(req(a.id))).rejects.toMatchObject({ code: 'store_unavailable' });
      await expect(store.commit(ledgerEntry(first.reservationId, a.id))).rejects.toMatchObject({
        code: 'store_unavailable',
      });
      for (const { slot, to } of moves)
        for (const c of conns) await c.call('CLUSTER', 'SETSLOT', slot, 'NODE', ids[to]!);
      // MOVED: served by the new owner; the reservation held before the move is charged once.
      await readsAndWrites();
      const second = req(a.id);
      expect(await store.reserve(second)).toMatchObject({ ok: true });
      expect(await store.commit(ledgerEntry(second.reservationId, a.id))).toBe(true);
      expect(await store.commit(ledgerEntry(first.reservationId, a.id))).toBe(true);
      expect((await store.ledger(a.id)).map((e) => e.reservationId).sort()).toEqual(
        [first.reservationId, second.reservationId].sort(),
      );
      expect(await store.usage(a.id, first.period)).toMatchObject({ used: 2 });
    } finally {
      for (const c of conns) c.disconnect();
      await store.close();
    }
  });
});

// Last in the file: it kills a master (and starts it again, empty).
describe('a master of the cluster dies', () => {
  it('calls on its slots fail fast with store_unavailable, one read spanning it too; nothing hangs; back, it serves again', async () => {
    const p = `k${randomUUID().slice(0, 8)}:`;
    const store = await RedisStore.connect(target(), { prefix: p, commandTimeoutMs: 500 });
    try {
      const victim = `127.0.0.1:${cluster.ports[0]}`;
      const owner = (zpid: string) => raw.slots[keySlot(redisKeys(p, true).entry(`zpid:${zpid}`))]![0];
      const zpids = Array.from({ length: 200 }, (_, i) => String(i));
      const onVictim = zpids.find((z) => owner(z) === victim)!;
      const elsewhere = zpids.find((z) => owner(z) !== victim)!;
      const lockOnVictim = zpids.find((z) => raw.slots[keySlot(redisKeys(p, true).lock(`zpid:${z}`))]![0] === victim)!;
      for (const z of [onVictim, elsewhere]) await store.putEntry(`zpid:${z}`, entry(z), null, 60_000);
      expect((await store.getEntries([`zpid:${onVictim}`, `zpid:${elsewhere}`])).map((e) => e?.zpid)).toEqual([
        onVictim,
        elsewhere,
      ]);

      await cluster.kill(0);
      await expect(store.getEntries([`zpid:${onVictim}`])).rejects.toMatchObject({ code: 'store_unavailable' });
      await expect(store.getEntries([`zpid:${elsewhere}`, `zpid:${onVictim}`])).rejects.toMatchObject({
        code: 'store_unavailable',
      });
      await expect(store.tryLock(`zpid:${lockOnVictim}`, 'tok', 1000)).rejects.toMatchObject({
        code: 'store_unavailable',
      });

      // The node back (empty, with its slots): the same store instance serves its slots again by itself.
      await cluster.restart(0);
      let back = false;
      for (let i = 0; i < 200 && !back; i++) {
        back = await store.getEntries([`zpid:${elsewhere}`, `zpid:${onVictim}`]).then(
          () => true,
          () => false,
        );
        if (!back) await new Promise((r) => setTimeout(r, 50));
      }
      expect(back).toBe(true);
      // The unlock of the lock tried while it was down is sent once its master is back (a cluster emits no
      // second 'ready' for one node): no lock of this instance outlives its intent on an append-only node.
      for (let i = 0; i < 200 && store.pendingUnlockCount > 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(store.pendingUnlockCount).toBe(0);
      expect((await store.getEntries([`zpid:${elsewhere}`, `zpid:${onVictim}`])).map((e) => e?.zpid ?? null)).toEqual([
        elsewhere,
        null,
      ]);
      expect(await store.tryLock(`zpid:${lockOnVictim}`, 'tok', 1000)).toBe(true);
    } finally {
      await store.close();
    }
  });
});
