// The memory store's byte bound on cached homes (MEMORY_CACHE_MB), kept by lru-cache's maxSize and
// sizeCalculation (issue 13 §5): what counts, what a replacement and a sweep do to it, and a home larger
// than the whole bound.
import { describe, expect, it } from 'vitest';
import { encodeEntry } from '../../src/store/entry-format.js';
import { MemoryStore } from '../../src/store/memory.js';
import type { CacheEntry } from '../../src/store/types.js';
import { entry } from './store-contract.js';

/** Bytes an entry counts for: two a character of its kept text. */
const bytes = async (e: CacheEntry): Promise<number> => 2 * (await encodeEntry(e, null)).text.length;
const put = (store: MemoryStore, z: string, e: CacheEntry = entry(z), ttlMs = 60_000) =>
  store.putEntry(`zpid:${z}`, e, null, ttlMs);
const held = async (store: MemoryStore, zs: string[]) =>
  (await store.getEntries(zs.map((z) => `zpid:${z}`))).map((e, i) => (e ? zs[i] : null)).filter((z) => z !== null);

describe('memory store: the bound on cached homes', () => {
  it('a home larger than the whole bound is not kept, and pushes nothing out', async () => {
    const one = await bytes(entry('1'));
    const store = new MemoryStore(Date.now, 2.5 * one);
    await put(store, '1');
    await put(store, '2');
    const big = { ...entry('9'), record: JSON.stringify({ zpid: '9', description: 'x'.repeat(3 * one) }) };
    await put(store, '9', big);
    expect(await held(store, ['1', '2', '9'])).toEqual(['1', '2']);
  });

  it('replacing a home counts its new size, not both', async () => {
    const one = await bytes(entry('1'));
    const store = new MemoryStore(Date.now, 3.5 * one);
    for (const z of ['1', '2', '3']) await put(store, z);
    await put(store, '3'); // the same size again: nothing to evict
    expect(await held(store, ['1', '2', '3'])).toEqual(['1', '2', '3']);
    expect(store.stats().entries).toBe(3);
  });

  it('a sweep drops expired homes without changing which live one is least recently read', async () => {
    let now = 1_000_000;
    const one = await bytes(entry('1'));
    const store = new MemoryStore(() => now, 3.5 * one);
    await put(store, '1');
    await put(store, '2');
    await put(store, 'x', entry('x'), 10);
    now += 20;
    await store.sweep();
    expect(store.stats().entries).toBe(2);
    // Least recent is still 1: two new homes fill the room, and 1 goes first.
    await put(store, '3');
    await put(store, '4');
    expect(await held(store, ['1', '2', '3', '4'])).toEqual(['2', '3', '4']);
  });
});
