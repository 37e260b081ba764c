// The watch store on memory and on a real Redis: the per-account cap holds under concurrent adds, a
// compare-and-store lets exactly one of two racing writers through (what makes a change announced
// once), removal, listing, and on Redis every key of an account's watches under one hash tag.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLocator } from '../../src/contract/index.js';
import { MemoryWatchStore, RedisWatchStore, type StoredWatch, type WatchStore } from '../../src/watches/store.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await disposeRedisServer(redis);
});

const watch = (account: string, id = `w_${randomUUID().slice(0, 8)}`): StoredWatch => ({
  id,
  account,
  locator: parseLocator({ zpid: '15192198' }),
  webhook_url: 'https://example.com/h',
  interval_hours: 24,
  created_at: '2026-10-09T12:00:00.000Z',
  home_zpid: null,
  last_values: null,
  last_checked_at: null,
  last_error: null,
  stopped: false,
});

describe.each(['memory', 'redis'] as const)('%s', (kind) => {
  const prefix = `ws${randomUUID().slice(0, 6)}:`;
  let store: WatchStore;
  beforeAll(() => {
    store = kind === 'memory' ? new MemoryWatchStore() : new RedisWatchStore(new Redis(redis.url), prefix);
  });
  afterAll(async () => {
    await store?.close();
  });

  it('the cap holds under concurrent adds; a removed watch frees its place; another account has its own', async () => {
    const added = await Promise.all(Array.from({ length: 10 }, () => store.add(watch('acct-cap'), 3)));
    expect(added.filter(Boolean)).toHaveLength(3);
    const kept = await store.list('acct-cap');
    expect(kept).toHaveLength(3);
    expect(await store.add(watch('acct-other'), 3)).toBe(true);
    expect(await store.remove('acct-cap', kept[0]!.id)).toBe(true);
    expect(await store.remove('acct-cap', kept[0]!.id)).toBe(false);
    expect(await store.add(watch('acct-cap'), 3)).toBe(true);
    expect(await store.get('acct-other', kept[1]!.id)).toBeNull();
  });

  it('compare-and-store: of two writers that read one version, exactly one stores', async () => {
    const w = watch('acct-cas');
    await store.add(w, 10);
    const read = (await store.get('acct-cas', w.id))!;
    const results = await Promise.all([
      store.update({ ...read.watch, last_values: { price: 1 } }, read.version),
      store.update({ ...read.watch, last_values: { price: 2 } }, read.version),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const now = (await store.get('acct-cas', w.id))!;
    expect(now.version).toBe(read.version + 1);
    expect(now.watch.last_values).toEqual(results[0] ? { price: 1 } : { price: 2 });
    await store.remove('acct-cas', w.id);
    expect(await store.update(now.watch, now.version)).toBe(false);
  });

  it.runIf(kind === 'redis')("an account's keys share one hash tag", async () => {
    await store.add(watch('acct:tag'), 10);
    const client = new Redis(redis.url);
    try {
      const keys = await client.keys(`${prefix}*acct:tag*`);
      expect(keys.length).toBe(2);
      for (const k of keys) expect(k.startsWith(`${prefix}{watch:acct:tag}:`)).toBe(true);
    } finally {
      client.disconnect();
    }
  });
});
