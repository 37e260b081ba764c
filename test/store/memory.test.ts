import { describe, expect, it } from 'vitest';
import { encodeEntry } from '../../src/store/entry-format.js';
import { MemoryStore } from '../../src/store/memory.js';
import type { CacheEntry } from '../../src/store/types.js';
import { account, budgetExpiryScenario, entry, ledgerEntry, req, storeContract } from './store-contract.js';

let current: MemoryStore;
/** The contract's memory stores run this far ahead of the real clock (expireEntry and elapse move it on). */
let skew = 0;
interface KeptEntry {
  value: { text: string; raw: Buffer | null; entry?: unknown };
  expiresAt: number;
}
const keptOf = (key: string) => (current as unknown as { entries: Map<string, KeptEntry> }).entries.get(key);
storeContract('memory', async () => (current = new MemoryStore(() => Date.now() + skew)), {
  // The memory store keeps each entry's text in its private `entries` map (entry-format.ts).
  async writeEntryText(key, text) {
    (current as unknown as { entries: Map<string, unknown> }).entries.set(key, {
      value: { text, raw: null },
      expiresAt: Infinity,
    });
  },
  async readRawValue(key) {
    return keptOf(key)?.value.raw ?? null;
  },
  async writeRawValue(key, value) {
    keptOf(key)!.value.raw = value;
  },
  async expireEntry(_key, ttlMs) {
    skew += ttlMs + 1;
  },
  async elapse(ms) {
    skew += ms;
  },
});

const HOUR = 3600_000;
/** Characters of an entry as the memory store keeps it. */
const kept = async (e: CacheEntry): Promise<number> => (await encodeEntry(e, null)).text.length;

describe('MemoryStore specifics', () => {
  it('a reservation its holder renews while the sweep is releasing the expired ones stays held, and its commit charges', async () => {
    let now = Date.parse('2026-03-01T00:00:00Z');
    const store = new MemoryStore(() => now);
    const a = account();
    const [first, second] = [req(a.id, { ttlMs: 1000 }), req(a.id, { ttlMs: 1000 })];
    for (const r of [first, second]) expect((await store.reserve(r)).ok).toBe(true);
    now += 1000;
    // The sweep has listed both and released the first when the holder of the second renews it.
    const sweeping = store.sweep();
    expect(await store.renewReservations([second.reservationId], 60_000)).toEqual([]);
    expect(await sweeping).toBe(1);
    expect(await store.commit(ledgerEntry(second.reservationId, a.id))).toBe(true);
    expect(await store.usage(a.id, 'lifetime')).toMatchObject({ used: 1, reserved: 0 });
  });

  it('sweep evicts expired cache entries, aliases, memos and locks (a long-running process does not grow without bound)', async () => {
    let now = Date.parse('2026-03-01T00:00:00Z');
    const store = new MemoryStore(() => now);
    await store.putEntry('zpid:1', entry('1'), null, 1000);
    await store.putEntry('zpid:2', entry('2'), null, 60_000);
    await store.putAlias('addr:a', 'zpid:1', 1000);
    await store.putAlias('addr:b', 'zpid:2', 60_000);
    await store.putMemo('addr:c', { code: 'address_ambiguous', message: 'm' }, 1000);
    expect(await store.tryLock('zpid:1', 'tok', 1000)).toBe(true);
    expect(store.stats()).toMatchObject({ entries: 2, aliases: 2, memos: 1, locks: 1 });
    now += 1000;
    // Nothing reads the expired keys: the sweep alone drops them.
    expect(await store.sweep()).toBe(0);
    expect(store.stats()).toMatchObject({ entries: 1, aliases: 1, memos: 0, locks: 0 });
    expect(await store.getEntries(['zpid:1', 'zpid:2'])).toEqual([null, entry('2')]);
    expect(await store.getAliases(['addr:a', 'addr:b'])).toEqual([null, 'zpid:2']);
    now += 60_000;
    await store.sweep();
    expect(store.stats()).toMatchObject({ entries: 0, aliases: 0, memos: 0, locks: 0 });
  });

  it('the cache is bounded by size: past it, the least recently read homes are forgotten', async () => {
    // Room for three entries (two bytes a character), not four.
    const one = 2 * (await kept(entry('1')));
    const store = new MemoryStore(Date.now, 3.5 * one);
    for (const z of ['1', '2', '3']) await store.putEntry(`zpid:${z}`, entry(z), null, 60_000);
    await store.getEntries(['zpid:1']); // read: now the most recent
    await store.putEntry('zpid:4', entry('4'), null, 60_000);
    expect(await store.getEntries(['zpid:1', 'zpid:2', 'zpid:3', 'zpid:4'])).toEqual([
      entry('1'),
      null,
      entry('3'),
      entry('4'),
    ]);
    expect(store.stats().entries).toBe(3);
  });

  it('a daily budget counter expires 48 h after it was last drawn on (like the Redis key); a late release never takes it below 0', async () => {
    let now = Date.parse('2026-03-01T12:00:00Z');
    const store = new MemoryStore(() => now);
    await budgetExpiryScenario(store, async () => {
      now += 48 * HOUR;
      expect(await store.sweep()).toBe(0); // the reservations themselves are not expired yet
      expect(store.stats()).toMatchObject({ budgets: 0, reservations: 2 });
    });
  });

  it("a home's history keeps its newest events within the bound and the retention; the sweep drops a home past it", async () => {
    let now = Date.parse('2026-03-01T12:00:00Z');
    const store = new MemoryStore(() => now, undefined, undefined, { retentionMs: HOUR, maxEventsPerHome: 2 });
    for (const n of [1, 2, 3]) await store.appendHistory('zpid:1', `{"n":${n}}`);
    expect((await store.readHistory('zpid:1', 10, null)).map((e) => e.event)).toEqual(['{"n":3}', '{"n":2}']);
    now += HOUR / 2;
    await store.appendHistory('zpid:2', '{"n":4}');
    now += HOUR / 2 + 1;
    expect(await store.readHistory('zpid:1', 10, null)).toEqual([]);
    expect(store.stats().histories).toBe(2);
    await store.sweep();
    expect(store.stats().histories).toBe(1);
    expect((await store.readHistory('zpid:2', 10, null)).map((e) => e.event)).toEqual(['{"n":4}']);
  });
});
