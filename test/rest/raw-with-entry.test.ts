// raw=true on a cache hit answers the raw record of the same write as the entry, read with it in one
// round trip, or reads the home live: never a 200 with `raw: null` for a home read with a raw record,
// never another write's raw record. The entry and its raw record are two Redis keys that can part
// (one evicted or expired first, a rewrite between two reads).
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore, redisKeys } from '../../src/store/redis.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

const KEY = 'test_raw_entry_key_01';
const HOME = '/v1/portal/property?zpid=2146993218';

let redis: RedisServer;
let store: RedisStore;
let svc: TestService;
let raw: Redis;
let prefix: string;
beforeAll(async () => {
  redis = await startRedisServer();
  prefix = `rw${randomUUID().slice(0, 6)}:`;
  store = await RedisStore.connect(redis.url, { prefix });
  svc = await startTestService({ store, accounts: { paid: { key: KEY, plan: 'paid', included: 100 } } });
  raw = new Redis(redis.url);
});
afterAll(async () => {
  raw?.disconnect();
  await svc?.close();
  await store?.close();
  await disposeRedisServer(redis);
});

const rawKey = () => redisKeys(prefix).raw('zpid:2146993218');

describe('raw=true on a cache hit (Redis)', () => {
  it('a hit whose raw record is gone or of another write is read live, never answered with raw null or another raw', async () => {
    const first = await svc.get(`${HOME}&raw=true`, KEY);
    expect(first.status).toBe(200);
    expect(first.body.meta).toMatchObject({ credits: 1, cached: false });
    expect(first.body.data.raw).not.toBeNull();

    // A hit with its own raw record: served from the cache.
    const hit = await svc.get(`${HOME}&raw=true`, KEY);
    expect(hit.body.meta).toMatchObject({ credits: 0, cached: true });
    expect(hit.body.data.raw).toEqual(first.body.data.raw);

    // The raw record evicted (Redis under memory pressure drops the big key first): the entry is still
    // a hit without raw, and with raw the home is read live again.
    await raw.del(rawKey());
    expect((await svc.get(HOME, KEY)).body.meta).toMatchObject({ credits: 0, cached: true });
    const evicted = await svc.get(`${HOME}&raw=true`, KEY);
    expect(evicted.status).toBe(200);
    expect(evicted.body.meta).toMatchObject({ credits: 1, cached: false });
    expect(evicted.body.data.raw).toEqual(first.body.data.raw);

    // The raw record of an earlier write left beside a newer entry (a rewrite between two reads).
    const earlier = await raw.getBuffer(rawKey());
    expect((await svc.get(`${HOME}&raw=true`, KEY)).body.meta).toMatchObject({ credits: 0, cached: true });
    await store.putEntry(
      'zpid:2146993218',
      (await store.getEntries(['zpid:2146993218']))[0]!,
      '{"another":"write"}',
      60_000,
    );
    await raw.set(rawKey(), earlier!, 'PX', 60_000);
    const mismatched = await svc.get(`${HOME}&raw=true`, KEY);
    expect(mismatched.body.meta).toMatchObject({ credits: 1, cached: false });
    expect(mismatched.body.data.raw).toEqual(first.body.data.raw);
  });
});
