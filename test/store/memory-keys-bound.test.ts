// The memory store's bound on address aliases and remembered ambiguous answers: each is held to a
// share of MEMORY_CACHE_MB, so distinct spellings of addresses cannot grow memory without limit.
import { describe, expect, it } from 'vitest';
import type { ErrorBody } from '../../src/contract/index.js';
import { MemoryStore } from '../../src/store/memory.js';

const DAY = 24 * 3600_000;
// 64 KiB for homes: an eighth of it (8 KiB) for aliases, and as much for memos.
const BOUND = 64 * 1024;
const spelling = (i: number) => `addr:${i} main st, springfield, il 62701`;

describe('memory store: aliases and memos are bounded', () => {
  it('past the bound the least recently read aliases go, the newest and a recently read one stay', async () => {
    const store = new MemoryStore(Date.now, BOUND);
    await store.putAlias(spelling(0), 'zpid:1', DAY);
    for (let i = 1; i < 5_000; i++) {
      await store.putAlias(spelling(i), `zpid:${i}`, DAY);
      // Read now and then: the first alias stays the most recently read of the old ones.
      if (i % 10 === 0) expect(await store.getAliases([spelling(0)])).toEqual(['zpid:1']);
    }
    const held = store.stats().aliases;
    expect(held).toBeGreaterThan(10);
    // Each counts at least its characters twice: the bound holds far fewer than were put.
    expect(held).toBeLessThan(BOUND / 8 / (2 * spelling(4_999).length));
    expect(await store.getAliases([spelling(4_999), spelling(0), spelling(1)])).toEqual(['zpid:4999', 'zpid:1', null]);
  });

  it('memos likewise', async () => {
    const store = new MemoryStore(Date.now, BOUND);
    const body: ErrorBody = { code: 'address_ambiguous', message: 'More than one home matches' };
    for (let i = 0; i < 5_000; i++) await store.putMemo(spelling(i), body, DAY);
    expect(store.stats().memos).toBeGreaterThan(10);
    expect(store.stats().memos).toBeLessThan(BOUND / 8 / (2 * spelling(4_999).length));
    expect(await store.getMemo(spelling(4_999))).toEqual(body);
    expect(await store.getMemo(spelling(0))).toBeNull();
  });

  it('an alias keeps its TTL within the bound', async () => {
    let now = 1_000_000;
    const store = new MemoryStore(() => now, BOUND);
    await store.putAlias(spelling(1), 'zpid:1', 10);
    expect(await store.getAliases([spelling(1)])).toEqual(['zpid:1']);
    now += 10;
    expect(await store.getAliases([spelling(1)])).toEqual([null]);
  });
});
