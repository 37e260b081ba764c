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

interface Op {
  id: string;
  account: string;
  commit: 'true' | 'false' | 'error' | null;
}

/** Runs reserve → commit (→ release if the commit failed) in a loop across the stores, recording every outcome. */
class Load {
  ops: Op[] = [];
  maxCallMs = 0;
  okCalls = 0;
  failedCalls = 0;
  okAfter = 0;
  /** Errors that were not store_unavailable with retry-after 30. */
  wrongErrors: unknown[] = [];
  private running = true;
  private workers: Promise<void>[] = [];
  private markAt = Infinity;

  constructor(private readonly stores: RedisStore[], workers: number) {
    for (let w = 0; w < workers; w++) this.workers.push(this.worker(w));
  }

  /** Counts successful calls from now on. */
  mark(): void {
    this.markAt = Date.now();
    this.okAfter = 0;
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers);
  }

  private async call<T>(fn: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false }> {
    const t0 = Date.now();
    try {
      const value = await fn();
      this.okCalls++;
      if (t0 >= this.markAt) this.okAfter++;
      return { ok: true, value };
    } catch (e) {
      this.failedCalls++;
      if (!(e instanceof LookupError) || e.code !== 'store_unavailable' || e.retryAfter !== 30) this.wrongErrors.push(e);
      return { ok: false };
    } finally {
      this.maxCallMs = Math.max(this.maxCallMs, Date.now() - t0);
    }
  }

  private async worker(w: number): Promise<void> {
    let i = 0;
    while (this.running) {
      i++;
      const store = this.stores[(w + i) % this.stores.length]!;
      const account = ACCOUNTS[(w + i) % ACCOUNTS.length]!;
      const r = req(account, { included: 1_000_000, ttlMs: RES_TTL_MS, budget: { day: DAY, scope: 'service', cap: null } });
      const op: Op = { id: r.reservationId, account, commit: null };
      this.ops.push(op);
      const reserved = await this.call(() => store.reserve(r));
      if (!reserved.ok) {
        await sleep(5); // a failed request; the client would back off
        continue;
      }
      expect(reserved.value.ok).toBe(true);
      await sleep(1);
      const other = this.stores[(w + i + 1) % this.stores.length]!;
      const committed = await this.call(() => other.commit(ledgerEntry(r.reservationId, account, { requestId: `w${w}-${i}` })));
      op.commit = committed.ok ? (committed.value ? 'true' : 'false') : 'error';
      if (!committed.ok) await this.call(() => store.release(r.reservationId));
    }
  }
}

async function waitUntilReady(stores: RedisStore[], withinMs: number): Promise<number> {
  const t0 = Date.now();
  for (;;) {
    const ok = await Promise.all(stores.map((s) => s.ping().then(() => true, () => false)));
    if (ok.every(Boolean)) return Date.now() - t0;
    if (Date.now() - t0 > withinMs) throw new Error('stores did not recover');
    await sleep(50);
  }
}

/** After the dust settles: counters == ledger, no double charge, no lost charge, nothing left held. */
async function checkBooks(stores: RedisStore[], load: Load): Promise<{ charged: number; ambiguous: number }> {
  await sleep(RES_TTL_MS + 200);
  await Promise.all(stores.map((s) => s.sweep()));
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
    expect(o).toBeDefined();
    expect(['true', 'error']).toContain(o!.commit);
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
    stores = await Promise.all([1, 2, 3].map(() => RedisStore.connect(server!.url, { prefix: 'out:', commandTimeoutMs: 500 })));
    const load = new Load(stores, 24);
    await sleep(400);
    const beforeOk = load.okCalls;
    expect(beforeOk).toBeGreaterThan(50);

    await server.kill();
    const failedBefore = load.failedCalls;
    await sleep(1200);
    const outageFailures = load.failedCalls - failedBefore;
    expect(outageFailures).toBeGreaterThan(50); // calls kept failing, fast, during the outage
    const t = Date.now();
    const okDuring = load.okCalls;
    await sleep(300);
    expect(load.okCalls).toBe(okDuring); // nothing succeeds while Redis is down
    expect(Date.now() - t).toBeLessThan(3000);

    await server.restart();
    const recoveredMs = await waitUntilReady(stores, 10_000);
    load.mark();
    await sleep(400);
    await load.stop();

    expect(load.wrongErrors).toEqual([]);
    expect(load.maxCallMs).toBeLessThan(3000);
    expect(recoveredMs).toBeLessThan(5000);
    expect(load.okAfter).toBeGreaterThan(50); // the same instances serve again
    const books = await checkBooks(stores, load);
    expect(books.charged).toBeGreaterThan(50);
    console.info(`[outage/kill] ok=${load.okCalls} failed=${load.failedCalls} maxCallMs=${load.maxCallMs} recoveredMs=${recoveredMs} charged=${books.charged} ambiguousCommits=${books.ambiguous}`);
  });

  it('a lock whose unlock failed during the outage is released once Redis is back (not left for its ttl)', async () => {
    server = await startRedisServer({ appendOnly: true });
    stores = await Promise.all([1, 2].map(() => RedisStore.connect(server!.url, { prefix: 'lck:', commandTimeoutMs: 500 })));
    const [a, b] = stores as [RedisStore, RedisStore];
    expect(await a.tryLock('zpid:1', 'holder', 600_000)).toBe(true);
    await server.kill();
    await expect(a.unlock('zpid:1', 'holder')).rejects.toMatchObject({ code: 'store_unavailable', retryAfter: 30 });
    await expect(b.tryLock('zpid:1', 'other', 600_000)).rejects.toMatchObject({ code: 'store_unavailable' });
    expect(a.pendingUnlockCount).toBe(1);
    await server.restart();
    await waitUntilReady(stores, 10_000);
    // The append-only file kept the lock; its holder's unlock is retried on reconnect.
    const until = Date.now() + 5000;
    let got = false;
    while (!got && Date.now() < until) {
      got = await b.tryLock('zpid:1', 'other', 600_000);
      if (!got) await sleep(50);
    }
    expect(got).toBe(true);
    expect(a.pendingUnlockCount).toBe(0);
    // The retried unlock of the old token does not touch the new holder's lock.
    expect(await a.tryLock('zpid:1', 'third', 600_000)).toBe(false);
  });

  it('frozen server (SIGSTOP) then thawed: calls time out within the command timeout, books exact', async () => {
    server = await startRedisServer();
    stores = await Promise.all([1, 2].map(() => RedisStore.connect(server!.url, { prefix: 'frz:', commandTimeoutMs: 500 })));
    const load = new Load(stores, 16);
    await sleep(300);
    server.pause();
    const failedBefore = load.failedCalls;
    await sleep(1500);
    expect(load.failedCalls - failedBefore).toBeGreaterThan(10);
    const t0 = Date.now();
    await expect(stores[0]!.getAccount('x')).rejects.toMatchObject({ code: 'store_unavailable', retryAfter: 30 });
    expect(Date.now() - t0).toBeLessThan(3000);
    server.resume();
    await waitUntilReady(stores, 10_000);
    load.mark();
    await sleep(300);
    await load.stop();

    expect(load.wrongErrors).toEqual([]);
    expect(load.maxCallMs).toBeLessThan(3000);
    expect(load.okAfter).toBeGreaterThan(20);
    // Commands that timed out on the client still ran once Redis thawed: reserves are swept,
    // commits are in the ledger exactly once.
    const books = await checkBooks(stores, load);
    console.info(`[outage/freeze] ok=${load.okCalls} failed=${load.failedCalls} maxCallMs=${load.maxCallMs} charged=${books.charged} ambiguousCommits=${books.ambiguous}`);
  });
});
