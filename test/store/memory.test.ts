import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/store/memory.js';
import { budgetExpiryScenario, entry, storeContract } from './store-contract.js';

storeContract('memory', async () => new MemoryStore());

const HOUR = 3600_000;

describe('MemoryStore specifics', () => {
  it('sweep evicts expired cache entries, aliases, memos and locks (a long-running process does not grow without bound)', async () => {
    let now = Date.parse('2026-03-01T00:00:00Z');
    const store = new MemoryStore(() => now);
    await store.putEntry('zpid:1', entry('1'), 1000);
    await store.putEntry('zpid:2', entry('2'), 60_000);
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

  it('a daily budget counter expires 48 h after it was last drawn on (like the Redis key); a late release never takes it below 0', async () => {
    let now = Date.parse('2026-03-01T12:00:00Z');
    const store = new MemoryStore(() => now);
    await budgetExpiryScenario(store, async () => {
      now += 48 * HOUR;
      expect(await store.sweep()).toBe(0); // the reservations themselves are not expired yet
      expect(store.stats()).toMatchObject({ budgets: 0, reservations: 2 });
    });
  });
});
