// Two service instances on ONE real redis-server, each remembering checked API keys for an hour
// (AUTH_CACHE_TTL_MS): a key revoked or rotated through one instance's store (as the accounts command
// does) is refused by the other as soon as the store's notice arrives, never after the hour.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeAccount, rotateKey } from '../../src/accounts/admin.js';
import { hashApiKey, seededAccountId } from '../../src/accounts/index.js';
import { startReplayServer } from '../../src/replay/server.js';
import { RedisStore } from '../../src/store/redis.js';
import { disposeRedisServer, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startTestService, type ReplayServer, type TestService } from '../helpers/service.js';
import { everySection } from '../helpers/sections.js';

/** A home cached in the store: the lookups below are hits, authenticated through the key cache. */
const HOME = 'zpid:777000777';
const LOOKUP = '/v1/portal/property?zpid=777000777';

const ACCOUNTS = {
  revoked: { key: 'test_two_key_revoke', plan: 'paid' as const, included: 10 },
  rotated: { key: 'test_two_key_rotate', plan: 'paid' as const, included: 10 },
};

let redis: RedisServer;
let replay: ReplayServer;
let a: TestService;
let b: TestService;
const stores: RedisStore[] = [];
beforeAll(async () => {
  redis = await startRedisServer();
  replay = await startReplayServer({ host: '127.0.0.1', port: 0 });
  const prefix = `a${randomUUID().slice(0, 8)}:`;
  const start = async () => {
    const store = await RedisStore.connect(redis.url, { prefix });
    stores.push(store);
    return startTestService({ store, replayServer: replay, accounts: ACCOUNTS, env: { AUTH_CACHE_TTL_MS: '3600000' } });
  };
  a = await start();
  b = await start();
  await a.store.putEntry(
    HOME,
    {
      record: '{"zpid":"777000777"}',
      fetchedAt: '2026-03-01T12:00:00.000Z',
      source: { provider: 'self_hosted', note: 'planted by the test' },
      zpid: '777000777',
      sections: everySection('present'),
      storedAt: Date.now(),
    },
    null,
    3600_000,
  );
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await Promise.all(stores.map((s) => s.close()));
  await replay?.close();
  await disposeRedisServer(redis);
});

const idOf = (key: string) => seededAccountId(hashApiKey(key, a.config.apiKeySecret));

/**
 * Asks until the answer is not 200 (only the store's notice can end it: the key cache holds for an
 * hour), at most 250 times.
 */
async function refusedBy(svc: TestService, key: string): Promise<string> {
  for (let i = 0; i < 250; i++) {
    const r = await svc.get(LOOKUP, key);
    if (r.status !== 200) return r.body.error.code;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return 'still served';
}

describe('an account changed through one instance', () => {
  it('revoked: the other instance refuses the key', async () => {
    expect((await b.get(LOOKUP, ACCOUNTS.revoked.key)).status).toBe(200); // b now remembers the key
    await revokeAccount(a.store, idOf(ACCOUNTS.revoked.key));
    expect(await refusedBy(b, ACCOUNTS.revoked.key)).toBe('invalid_api_key');
    expect((await a.get(LOOKUP, ACCOUNTS.revoked.key)).status).toBe(401);
  });

  it('key rotated: the other instance refuses the old key and takes the new one', async () => {
    expect((await b.get(LOOKUP, ACCOUNTS.rotated.key)).status).toBe(200);
    const { key } = await rotateKey(a.store, a.config.apiKeySecret, idOf(ACCOUNTS.rotated.key));
    expect(await refusedBy(b, ACCOUNTS.rotated.key)).toBe('invalid_api_key');
    expect((await b.get(LOOKUP, key)).status).toBe(200);
  });
});
