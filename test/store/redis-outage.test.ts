// Redis goes away under load (crash, then a frozen server): every call fails fast with
// store_unavailable, nothing hangs, the same RedisStore instances recover by themselves once Redis
// is back, and no charge is lost or doubled.
import { afterEach, describe, expect, it } from 'vitest';
import { LookupError } from '../../src/contract/errors.js';
import { RedisStore } from '../../src/store/redis.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { ledgerEntry, req } from './store-contract.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ACCOUNTS = ['acct_o1', 'acct_o2', 'acct_o3', 'acct_o4'];
const DAY = '2026-05-01';
const RES_TTL_MS = 1500;
/** Bound on waiting for something that must happen (a hang or a missing recovery fails the test here). */
const EVENTUALLY_MS = 20_000;

interface Op {
  id: string;
  account: string;
  commit: 'true' | 'false' | 'error' | null;
}

interface Call {
  store: number;
  /** Outage phase when the call started (set by the test; a tick, not a clock). */
  phase: Phase;
  ok: boolean;
}

type Phase = 'before' | 'down' | 'restarting' | 'after';

/** Runs reserve → commit (→ release if the commit failed) in a loop across the stores, recording every outcome. */
class Load {
  ops: Op[] = [];
  calls: Call[] = [];
  phase: Phase = 'before';
  /** Errors that were not store_unavailable with retry-after 30. */
  wrongErrors: unknown[] = [];
  private running = true;
  private workers: Promise<void>[] = [];

  constructor(
    private readonly stores: RedisStore[],
    workers: number,
  ) {
    for (let w = 0; w < workers; w++) this.workers.push(this.worker(w));
  }

  count(filter: (c: Call) => boolean): number {
    return this.calls.filter(filter).length;
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers);
  }

  private async call<T>(storeIndex: number, fn: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false }> {
    const call: Call = { store: storeIndex, phase: this.phase, ok: false };
    try {
      const value = await fn();
      call.ok = true;
      return { ok: true, value };
    } catch (e) {
      if (!(e instanceof LookupError) || e.code !== 'store_unavailable' || e.retryAfterSeconds !== 30)
        this.wrongErrors.push(e);
      return { ok: false };
    } finally {
      this.calls.push(call);
    }
  }

  private async worker(w: number): Promise<void> {
    let i = 0;
    while (this.running) {
      i++;
      const s = (w + i) % this.stores.length;
      const store = this.stores[s]!;
      const account = ACCOUNTS[(w + i) % ACCOUNTS.length]!;
      const r = req(account, {
        included: 1_000_000,
        ttlMs: RES_TTL_MS,
        budget: { day: DAY, scope: 'service', cap: null },
      });
      const op: Op = { id: r.reservationId, account, commit: null };
      this.ops.push(op);
      const reserved = await this.call(s, () => store.reserve(r));
      if (!reserved.ok) {
        await sleep(5); // a failed request; the client would back off
        continue;
      }
      expect(reserved.value.ok).toBe(true);
      await sleep(1);
      const o = (w + i + 1) % this.stores.length;
      const committed = await this.call(o, () =>
        this.stores[o]!.commit(ledgerEntry(r.reservationId, account, { requestId: `w${w}-${i}` })),
      );
      op.commit = committed.ok ? (committed.value ? 'true' : 'false') : 'error';
      if (!committed.ok) await this.call(s, () => store.release(r.reservationId));
    }
  }
}

/** Waits (bounded) until `done` holds. */
async function eventually(what: string, done: () => boolean | Promise<boolean>): Promise<void> {
  const until = Date.now() + EVENTUALLY_MS;
  while (!(await done())) {
    if (Date.now() > until) throw new Error(`not within ${EVENTUALLY_MS} ms: ${what}`);
    await sleep(25);
  }
}

const allReady = (stores: RedisStore[]) => async () =>
  (
    await Promise.all(
      stores.map((s) =>
        s.ping().then(
          () => true,
          () => false,
        ),
      ),
    )
  ).every(Boolean);

/** Every store instance has answered a call successfully since the load entered `phase`. */
const eachServedIn = (load: Load, stores: RedisStore[], phase: Phase) => () =>
  stores.every((_, i) => load.count((c) => c.phase === phase && c.store === i && c.ok) > 0);

/**
 * Sweeps until no account has a credit reserved: a reservation left by a call the outage cut off
 * lapses within its ttl (by Redis's clock). Fails if one is still held well past that.
 */
async function sweptClean(stores: RedisStore[]): Promise<void> {
  const bound = Date.now() + RES_TTL_MS + 2_000;
  for (;;) {
    await Promise.all(stores.map((s) => s.sweep()));
    const usage = await Promise.all(ACCOUNTS.map((a) => stores[stores.length - 1]!.usage(a, 'lifetime')));
    const reserved = usage.reduce((n, u) => n + u.reserved, 0);
    if (reserved === 0) return;
    if (Date.now() > bound)
      throw new Error(`${reserved} credits still reserved past the reservations' ttl (${RES_TTL_MS} ms)`);
    await sleep(50);
  }
}

/** After the dust settles: counters == ledger, no double charge, no lost charge, nothing left held. */
async function checkBooks(stores: RedisStore[], load: Load): Promise<{ charged: number; ambiguous: number }> {
  await sweptClean(stores);
  const ledger = await stores[0]!.ledger();
  const ids = ledger.map((e) => e.reservationId);
  expect(new Set(ids).size).toBe(ids.length); // never charged twice
  const byId = new Map(load.ops.map((o) => [o.id, o]));
  const inLedger = new Set(ids);
  // Every commit that answered true is in the ledger (the AOF keeps it across the crash).
  for (const o of load.ops) if (o.commit === 'true') expect(inLedger.has(o.id)).toBe(true);
  // Every charge belongs to a commit that was sent: answered true, or failed in flight (ambiguous).
  let ambiguous = 0;
  for (const id of ids) {
    const o = byId.get(id);
    expect(['true', 'error'], `charge ${id} without a commit`).toContain(o?.commit);
    if (o!.commit === 'error') ambiguous++;
  }
  let used = 0;
  for (const account of ACCOUNTS) {
    const u = await stores[stores.length - 1]!.usage(account, 'lifetime');
    expect(u.reserved).toBe(0);
    expect(u.used).toBe(ledger.filter((e) => e.accountId === account).length);
    used += u.used;
  }
  expect(used).toBe(ledger.length);
  expect(await stores[stores.length - 1]!.budgetUsage(DAY, 'service')).toBe(ledger.length);
  return { charged: ledger.length, ambiguous };
}

let server: RedisServer | undefined;
let stores: RedisStore[] = [];
afterEach(async () => {
  await Promise.all(stores.map((s) => s.close()));
  stores = [];
  await disposeRedisServer(server);
  server = undefined;
});

describe('RedisStore when Redis goes away under load', () => {
  it('crash (SIGKILL) and restart: fail fast, recover in place, books exact', async () => {
    server = await startRedisServer({ appendOnly: true });
    stores = await Promise.all(
      [1, 2, 3].map(() => RedisStore.connect(server!.url, { prefix: 'out:', commandTimeoutMs: 500 })),
    );
    const load = new Load(stores, 24);
    await eventually('each instance served before the crash', eachServedIn(load, stores, 'before'));

    await server.kill();
    load.phase = 'down';
    // Calls keep coming back (a hang would stop the workers and trip the bound), all as store_unavailable.
    await eventually('calls failed while Redis was down', () => load.count((c) => c.phase === 'down' && !c.ok) >= 20);
    load.phase = 'restarting';
    expect(load.count((c) => c.phase === 'down' && c.ok)).toBe(0); // nothing succeeds while Redis is down

    await server.restart();
    await eventually('every instance reconnected by itself', allReady(stores));
    load.phase = 'after';
    await eventually('the same instances serve again', eachServedIn(load, stores, 'after'));
    await load.stop();

    expect(load.wrongErrors).toEqual([]);
    expect(load.count((c) => c.phase === 'down' && c.ok)).toBe(0);
    const books = await checkBooks(stores, load);
    expect(books.charged).toBeGreaterThan(0);
    console.info(
      `[outage/kill] calls=${load.calls.length} failed=${load.count((c) => !c.ok)} charged=${books.charged} ambiguousCommits=${books.ambiguous}`,
    );
  });

  it('a lock whose unlock failed during the outage is released once Redis is back (not left for its ttl)', async () => {
    server = await startRedisServer({ appendOnly: true });
    stores = await Promise.all(
      [1, 2].map(() => RedisStore.connect(server!.url, { prefix: 'lck:', commandTimeoutMs: 500 })),
    );
    const [a, b] = stores as [RedisStore, RedisStore];
    expect(await a.tryLock('zpid:1', 'holder', 600_000)).toBe(true);
    await server.kill();
    const failure = (p: Promise<unknown>) =>
      p.then(
        () => null,
        (e: unknown) => e as LookupError,
      );
    const unlockFailed = await failure(a.unlock('zpid:1', 'holder'));
    expect({ code: unlockFailed?.code, retryAfter: unlockFailed?.retryAfterSeconds }).toEqual({
      code: 'store_unavailable',
      retryAfter: 30,
    });
    expect((await failure(b.tryLock('zpid:1', 'other', 600_000)))?.code).toBe('store_unavailable');
    expect(a.pendingUnlockCount).toBe(1);
    await server.restart();
    await eventually('both instances reconnected', allReady(stores));
    // The append-only file kept the lock; its holder's unlock is retried on reconnect.
    await eventually('the lock is free again', () => b.tryLock('zpid:1', 'other', 600_000));
    expect(a.pendingUnlockCount).toBe(0);
    // The retried unlock of the old token does not touch the new holder's lock.
    expect(await a.tryLock('zpid:1', 'third', 600_000)).toBe(false);
  });

  it('frozen server (SIGSTOP) then thawed: calls fail with store_unavailable (no hang), books exact', async () => {
    server = await startRedisServer();
    stores = await Promise.all(
      [1, 2].map(() => RedisStore.connect(server!.url, { prefix: 'frz:', commandTimeoutMs: 500 })),
    );
    const load = new Load(stores, 16);
    await eventually('each instance served before the freeze', eachServedIn(load, stores, 'before'));
    server.pause();
    load.phase = 'down';
    // Commands to a frozen server end at the command timeout, as store_unavailable.
    await eventually('calls failed while Redis was frozen', () => load.count((c) => c.phase === 'down' && !c.ok) >= 10);
    const err = await stores[0]!.getAccount('x').then(
      () => null,
      (e: unknown) => e as LookupError,
    );
    expect({ code: err?.code, retryAfter: err?.retryAfterSeconds }).toEqual({
      code: 'store_unavailable',
      retryAfter: 30,
    });
    load.phase = 'restarting';
    server.resume();
    await eventually('every instance answers again', allReady(stores));
    load.phase = 'after';
    await eventually('the same instances serve again', eachServedIn(load, stores, 'after'));
    await load.stop();

    expect(load.wrongErrors).toEqual([]);
    // Commands that timed out on the client still ran once Redis thawed: reserves are swept,
    // commits are in the ledger exactly once.
    const books = await checkBooks(stores, load);
    expect(books.charged).toBeGreaterThan(0);
    console.info(
      `[outage/freeze] calls=${load.calls.length} failed=${load.count((c) => !c.ok)} charged=${books.charged} ambiguousCommits=${books.ambiguous}`,
    );
  });
});
