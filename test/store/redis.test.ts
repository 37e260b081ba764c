import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LookupError } from '../../src/contract/errors.js';
import { encodeEntry } from '../../src/store/entry-format.js';
import { RedisStore, redisKeys } from '../../src/store/redis.js';
import { keySlot } from '../../src/store/redis-connection.js';
import type { ReserveRequest } from '../../src/store/types.js';
import { disposeRedisServer, freePort, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { account, budgetExpiryScenario, entry, ledgerEntry, rawJsonOf, req, storeContract } from './store-contract.js';

let server: RedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await disposeRedisServer(server);
});

/** ARGV: 1 key prefix, 2 ms. What `ms` passing would do to the keys under the prefix (see RedisStore's key layout). */
const LUA_ELAPSE = `
local ms = tonumber(ARGV[2])
for _, k in ipairs(redis.call('KEYS', ARGV[1] .. '*')) do
  local left = redis.call('PTTL', k)
  if left > 0 then
    if left <= ms then redis.call('DEL', k) else redis.call('PEXPIRE', k, left - ms) end
  end
end
local byExpiry = ARGV[1] .. '{bill}:res-by-expiry'
local held = redis.call('ZRANGE', byExpiry, 0, -1, 'WITHSCORES')
for i = 1, #held, 2 do
  local at = string.format('%d', tonumber(held[i + 1]) - ms)
  redis.call('ZADD', byExpiry, at, held[i])
  local record = ARGV[1] .. '{bill}:res:' .. held[i]
  if redis.call('EXISTS', record) == 1 then redis.call('HSET', record, 'expires_at', at) end
end
return 1
`;

// Each test gets its own key prefix on the one server, so tests never see each other's keys.
let prefix = '';
storeContract('redis', () => RedisStore.connect(server.url, { prefix: (prefix = `t${randomUUID().slice(0, 8)}:`) }), {
  async writeEntryText(key, text) {
    const raw = new Redis(server.url);
    await raw.set(redisKeys(prefix).entry(key), text, 'PX', 60_000);
    raw.disconnect();
  },
  async readRawValue(key) {
    const raw = new Redis(server.url);
    const value = await raw.getBuffer(redisKeys(prefix).raw(key));
    raw.disconnect();
    return value;
  },
  async writeRawValue(key, value) {
    const raw = new Redis(server.url);
    if (value === null) await raw.del(redisKeys(prefix).raw(key));
    else await raw.set(redisKeys(prefix).raw(key), value, 'PX', 60_000);
    raw.disconnect();
  },
  async expireEntry(key, ttlMs) {
    const raw = new Redis(server.url);
    const keys = [redisKeys(prefix).entry(key), redisKeys(prefix).raw(key)];
    for (const k of keys) {
      const left = await raw.pttl(k);
      expect(left).toBeGreaterThan(0);
      expect(left).toBeLessThanOrEqual(ttlMs);
      await raw.pexpire(k, 0);
    }
    raw.disconnect();
  },
  // Redis keeps its own time: every ttl under the test's prefix and every reservation's expiry (server
  // time, in its record and the expiry zset) is moved `ms` closer instead.
  async elapse(ms) {
    const raw = new Redis(server.url);
    await raw.eval(LUA_ELAPSE, 0, prefix, String(ms));
    raw.disconnect();
  },
});

describe('RedisStore specifics', () => {
  it('a lease renewal is never held back as overloaded by a busy event loop: it ends at its own bound, as store_unavailable', async () => {
    const own = await startRedisServer();
    const store = await RedisStore.connect(own.url, {
      prefix: `rn${randomUUID().slice(0, 8)}:`,
      commandTimeoutMs: 100,
    });
    try {
      expect(await store.tryLock('zpid:1', 'tok', 60_000)).toBe(true);
      own.pause();
      // Both sent to a frozen Redis while this process stays busy (a saturated instance).
      const outcome = (p: Promise<unknown>) =>
        p.then(
          () => 'answered',
          (e: unknown) => (e instanceof LookupError ? e.code : 'other'),
        );
      const renewal = outcome(store.renewLocks([{ key: 'zpid:1', token: 'tok' }], 60_000));
      const other = outcome(store.getAccount('x'));
      let settled = false;
      void Promise.all([renewal, other]).then(() => (settled = true));
      while (!settled) {
        const until = performance.now() + 20;
        while (performance.now() < until) {
          /* busy */
        }
        await new Promise((r) => setImmediate(r));
      }
      expect(await renewal).toBe('store_unavailable');
      // The same busy windows hold any other call back, then shed it: never blamed on the store.
      expect(await other).not.toBe('store_unavailable');
    } finally {
      own.resume();
      await store.close();
      await disposeRedisServer(own);
    }
  });

  it('a reservation its holder renews after the sweep listed it as expired stays held, and its commit charges', async () => {
    const prefix = `sw${randomUUID().slice(0, 8)}:`;
    const store = await RedisStore.connect(server.url, { prefix });
    const raw = new Redis(server.url);
    try {
      const a = account();
      const r = req(a.id);
      expect((await store.reserve(r)).ok).toBe(true);
      // Expired by the server's clock (its holder was late), without waiting for it.
      await raw.zadd(`${prefix}{bill}:res-by-expiry`, 0, r.reservationId);
      // Gate: the holder's renewal lands between the sweep's listing and its release.
      const scripts = (store as unknown as { scripts: { plExpired: (...args: string[]) => Promise<string[]> } })
        .scripts;
      const list = scripts.plExpired.bind(scripts);
      let renewed: string[] | null = null;
      scripts.plExpired = async (...args) => {
        const ids = await list(...args);
        if (ids.includes(r.reservationId)) renewed = await store.renewReservations([r.reservationId], 60_000);
        return ids;
      };
      expect(await store.sweep()).toBe(0);
      expect(renewed).toEqual([]);
      expect(await store.commit(ledgerEntry(r.reservationId, a.id))).toBe(true);
      expect(await store.usage(a.id, 'lifetime')).toMatchObject({ used: 1, reserved: 0 });
    } finally {
      raw.disconnect();
      await store.close();
    }
  });

  it('keeps every key under the prefix, billing keys in the {bill} slot and account keys in {acct}', async () => {
    const prefix = `k${randomUUID().slice(0, 8)}:`;
    const store = await RedisStore.connect(server.url, { prefix });
    const raw = new Redis(server.url);
    try {
      const a = account();
      await store.putAccount(a);
      await store.putEntry('zpid:1', entry('1'), rawJsonOf('1'), 60_000);
      await store.putAlias('addr:x', 'zpid:1', 60_000);
      await store.putMemo('addr:y', { code: 'address_ambiguous', message: 'm' }, 60_000);
      await store.tryLock('zpid:1', 'tok', 60_000);
      const r = req(a.id, { budget: { day: '2026-03-01', scope: 'service', cap: 10 } });
      await store.reserve(r);
      await store.reserve(req(a.id));
      await store.commit(ledgerEntry(r.reservationId, a.id));
      const keys = await raw.keys(`${prefix}*`);
      expect(keys.length).toBeGreaterThan(8);
      const billing = keys.filter((k) => /:(usage|budget|res|res-by-expiry|ledger)(:|$)/.test(k));
      const accounts = keys.filter((k) => /:(account|key|ids)(:|$)/.test(k));
      expect(billing.length).toBeGreaterThanOrEqual(4);
      for (const k of billing) expect(k.startsWith(`${prefix}{bill}:`)).toBe(true);
      expect(accounts).toHaveLength(3);
      for (const k of accounts) expect(k.startsWith(`${prefix}{acct}:`)).toBe(true);
      expect(await raw.type(`${prefix}{bill}:ledger`)).toBe('stream');
      expect(await raw.xlen(`${prefix}{bill}:ledger`)).toBe(1);
      // One reservation is still held: its record and its place in the expiry index.
      expect(await raw.zcard(`${prefix}{bill}:res-by-expiry`)).toBe(1);
      // TTLs: cache, memo, lock and the budget counter expire; the ledger does not.
      expect(await raw.pttl(redisKeys(prefix).entry('zpid:1'))).toBeGreaterThan(50_000);
      expect(await raw.pttl(redisKeys(prefix).raw('zpid:1'))).toBeGreaterThan(50_000);
      // A home's keys keep their untagged names on a single server; on a cluster they share a hash tag
      // (one slot: one MULTI, one MGET).
      expect(keys).toEqual(expect.arrayContaining([`${prefix}entry4:zpid:1`, `${prefix}raw4:zpid:1`]));
      expect(redisKeys(prefix, true).entry('zpid:1')).toMatch(/\{zpid:1\}$/);
      expect(keySlot(redisKeys(prefix, true).raw('zpid:1'))).toBe(keySlot(redisKeys(prefix, true).entry('zpid:1')));
      // The raw record is kept compressed, far smaller than its JSON.
      expect((await raw.strlen(redisKeys(prefix).raw('zpid:1'))) * 5).toBeLessThan(rawJsonOf('1').length);
      expect(await raw.pttl(`${prefix}{bill}:budget:service:2026-03-01`)).toBeGreaterThan(47 * 3600_000);
      expect(await raw.pttl(`${prefix}{bill}:ledger`)).toBe(-1);
    } finally {
      raw.disconnect();
      await store.close();
    }
  });

  it('an entry the previous release wrote is still a hit after the upgrade (a miss would be read live and billed again)', async () => {
    const prefix = `u${randomUUID().slice(0, 8)}:`;
    const store = await RedisStore.connect(server.url, { prefix });
    const raw = new Redis(server.url);
    try {
      // As f8d3b5e (before Redis Cluster support) wrote it: these two names, in one transaction.
      const { text, raw: rawValue } = await encodeEntry(entry('5'), rawJsonOf('5'));
      await raw
        .multi()
        .set(`${prefix}entry4:zpid:5`, text, 'PX', 60_000)
        .set(`${prefix}raw4:zpid:5`, rawValue!, 'PX', 60_000)
        .exec();
      expect(await store.getEntries(['zpid:5', 'zpid:6'])).toEqual([entry('5'), null]);
      expect(await store.getEntriesWithRaw(['zpid:5'])).toEqual([{ entry: entry('5'), rawJson: rawJsonOf('5') }]);
    } finally {
      raw.disconnect();
      await store.close();
    }
  });

  it('a corrupt cache value reads as a miss, not a failure', async () => {
    const prefix = `c${randomUUID().slice(0, 8)}:`;
    const store = await RedisStore.connect(server.url, { prefix });
    const raw = new Redis(server.url);
    try {
      await raw.set(redisKeys(prefix).entry('zpid:7'), '{not json');
      await raw.set(redisKeys(prefix).raw('zpid:7'), 'not brotli');
      await store.putEntry('zpid:8', entry('8'), null, 60_000);
      expect(await store.getEntries(['zpid:7', 'zpid:8'])).toEqual([null, entry('8')]);
      expect(await store.getEntriesWithRaw(['zpid:7', 'zpid:8'])).toEqual([null, { entry: entry('8'), rawJson: null }]);
      // A rolling upgrade: the older code's entry (its key, its JSON) is never read by this code.
      await raw.set(
        `${prefix}cache:zpid:9`,
        JSON.stringify({
          record: JSON.parse(entry('9').record),
          raw: null,
          fetchedAt: entry('9').fetchedAt,
          source: entry('9').source,
          zpid: '9',
        }),
      );
      expect(await store.getEntries(['zpid:9'])).toEqual([null]);
    } finally {
      raw.disconnect();
      await store.close();
    }
  });

  it('connect() returns quickly when nothing listens, fails fast, then recovers by itself', async () => {
    const port = await freePort();
    // Returns without a connection (a start-up does not wait for Redis).
    const store = await RedisStore.connect(`redis://127.0.0.1:${port}`, { prefix: 'down:' });
    try {
      expect(store.ready).toBe(false);
      // Fails fast: every call is refused while there is no connection, none is queued for later.
      const err = await store.getAccount('x').then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(LookupError);
      expect((err as LookupError).code).toBe('store_unavailable');
      // retry-after 30 comes from the contract's table for store_unavailable, not from the store.
      expect((err as LookupError).retryAfterSeconds).toBe(30);
      expect((err as LookupError).retryAfter).toBeUndefined();
      await expect(store.ping()).rejects.toMatchObject({ code: 'store_unavailable' });
      await expect(store.reserve(req('a'))).rejects.toMatchObject({ code: 'store_unavailable' });
      expect(store.ready).toBe(false);
      // Redis comes up on that port: the same store instance starts working.
      const { spawn } = await import('node:child_process');
      const child = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: 'ignore' },
      );
      try {
        const deadline = Date.now() + 10_000;
        let ok = false;
        while (!ok && Date.now() < deadline) {
          ok = await store.ping().then(
            () => true,
            () => false,
          );
          if (!ok) await new Promise((r) => setTimeout(r, 100));
        }
        expect(ok).toBe(true);
        expect((await store.reserve(req('a'))).ok).toBe(true);
      } finally {
        child.kill('SIGKILL');
      }
    } finally {
      await store.close();
    }
  });

  it('every Lua script touches only keys it declares (KEYS), all in one hash slot', async () => {
    const prefix = `m${randomUUID().slice(0, 8)}:`;
    // MONITOR before the store connects: ioredis enters monitoring mode a tick after MONITOR's OK, so a
    // command from another client in that gap (the store's epoch check) came back as "Command queue
    // state error" (seen under load).
    const base = new Redis(server.url);
    const monitor = await base.monitor();
    const marker = `end-${prefix}`;
    const events: { source: string; args: string[] }[] = [];
    const markerSeen = new Promise<void>((resolve) => {
      monitor.on('monitor', (_time: string, args: string[], source: string) => {
        events.push({ source, args });
        if (args[1] === marker) resolve();
      });
    });
    const store = await RedisStore.connect(server.url, { prefix });
    const raw = new Redis(server.url);
    try {
      const a = account({ plan: 'paid' });
      await store.putAccount(a);
      await store.putAccount({ ...a, keyHash: 'cd'.repeat(32) }); // key rotation: the old index entry goes
      expect(await store.getAccountByKeyHash('cd'.repeat(32))).toMatchObject({ id: a.id });
      expect(await store.getAccountByKeyHash(a.keyHash)).toBeNull();
      const paid = (over: Partial<ReserveRequest> = {}) =>
        req(a.id, {
          period: '2026-03',
          included: 1,
          overage: { rateMicroUsd: 1000, spendLimitMicroUsd: 1_000_000 },
          budget: { day: '2026-03-01', scope: 'paid', cap: 100 },
          ...over,
        });
      const [r1, r2, r3] = [paid(), paid(), paid()];
      for (const r of [r1, r2, r3]) expect((await store.reserve(r)).ok).toBe(true);
      expect(await store.commit(ledgerEntry(r2.reservationId, a.id))).toBe(true);
      expect(await store.release(r1.reservationId)).toBe(true);
      expect(await store.commit(ledgerEntry(r3.reservationId, a.id))).toBe(true);
      const short = paid({ ttlMs: 1 });
      expect((await store.reserve(short)).ok).toBe(true);
      await new Promise((r) => setTimeout(r, 20));
      expect(await store.sweep()).toBe(1);
      expect(await store.tryLock('zpid:1', 'tok', 60_000)).toBe(true);
      await store.unlock('zpid:1', 'tok');
      const r4 = paid();
      expect((await store.reserve(r4)).ok).toBe(true);
      expect(await store.renewReservations([r4.reservationId], 60_000)).toEqual([]);
      expect(await store.tryLock('zpid:2', 'tok', 60_000)).toBe(true);
      expect(await store.renewLocks([{ key: 'zpid:2', token: 'tok' }], 60_000)).toEqual([]);
      expect(await store.commit(ledgerEntry(r4.reservationId, a.id))).toBe(true);
      const ref = {
        reservationId: r4.reservationId,
        accountId: a.id,
        period: '2026-03',
        day: '2026-03-01',
        scope: 'paid' as const,
        requestId: ledgerEntry(r4.reservationId, a.id).requestId,
      };
      expect(await store.voidReservation(ref)).toBe('voided');
      await raw.echo(marker);
      await markerSeen;
    } finally {
      monitor.disconnect();
      base.disconnect();
      raw.disconnect();
      await store.close();
    }
    // MONITOR lists a script call (EVALSHA sha numkeys key…) and then the commands the script ran.
    let declared: string[] | null = null;
    let scripts = 0;
    let scriptCommands = 0;
    const slotTag = (key: string) => /\{([^}]*)\}/.exec(key)?.[1] ?? key;
    for (const { source, args } of events) {
      const cmd = args[0]!.toLowerCase();
      if (source !== 'lua') {
        declared = null;
        if ((cmd === 'evalsha' || cmd === 'eval') && args[3]?.startsWith(prefix)) {
          declared = args.slice(3, 3 + Number(args[2]));
          scripts++;
          expect(new Set(declared.map(slotTag)).size, `one slot: ${declared.join(' ')}`).toBe(1);
        }
        continue;
      }
      // TIME reads no key; PUBLISH names a channel, not a key (channels are not in any slot).
      if (cmd === 'time' || cmd === 'publish') continue;
      scriptCommands++;
      expect(declared, `${args.join(' ')} outside a known script`).not.toBeNull();
      expect(declared, `${args.join(' ')} touches an undeclared key`).toContain(args[1]);
    }
    expect(scripts).toBeGreaterThanOrEqual(8);
    expect(scriptCommands).toBeGreaterThan(scripts);
  });

  it('a release after the daily budget key expired never takes it below 0 (the same numbers as the memory store)', async () => {
    const prefix = `b${randomUUID().slice(0, 8)}:`;
    const store = await RedisStore.connect(server.url, { prefix });
    const raw = new Redis(server.url);
    const budgetKey = `${prefix}{bill}:budget:service:2026-03-01`;
    try {
      await budgetExpiryScenario(store, async () => {
        await raw.del(budgetKey); // what its 48 h expiry does
      });
      expect(await raw.get(budgetKey)).toBe('0');
    } finally {
      raw.disconnect();
      await store.close();
    }
  });

  it('a reservation held before kinds were decided at commit (no `included` on its record) is charged as it was held', async () => {
    const prefix = `l${randomUUID().slice(0, 8)}:`;
    const store = await RedisStore.connect(server.url, { prefix });
    const raw = new Redis(server.url);
    try {
      const paid = () =>
        req('acct_legacy', {
          period: '2026-03',
          included: 1,
          overage: { rateMicroUsd: 1000, spendLimitMicroUsd: null },
          budget: { day: '2026-03-01', scope: 'paid', cap: null },
        });
      const [a, b] = [paid(), paid()];
      expect(await store.reserve(a)).toEqual({ ok: true, kind: 'included' });
      expect(await store.reserve(b)).toEqual({ ok: true, kind: 'overage' });
      await raw.hdel(`${prefix}{bill}:res:${b.reservationId}`, 'included');
      expect(await store.release(a.reservationId)).toBe(true);
      expect(await store.commit(ledgerEntry(b.reservationId, 'acct_legacy'))).toBe(true);
      expect(await store.usage('acct_legacy', '2026-03')).toEqual({ used: 1, reserved: 0, overageUsed: 1 });
      expect((await store.ledger('acct_legacy')).map((e) => e.kind)).toEqual(['overage']);
    } finally {
      raw.disconnect();
      await store.close();
    }
  });

  it('rejects a prefix that would change the hash slot', async () => {
    await expect(RedisStore.connect(server.url, { prefix: 'a{b}:' })).rejects.toThrow(/must not contain/);
  });
});
