import { describe, expect, it } from 'vitest';
import { AuthCache } from '../../src/accounts/auth-cache.js';
import { authenticate } from '../../src/accounts/authenticate.js';
import { hashApiKey } from '../../src/accounts/keys.js';
import { seedAccounts } from '../../src/accounts/seed.js';
import { MemoryStore } from '../../src/store/memory.js';

const SECRET = 'auth-cache-test-secret';
const KEY = 'pl_live_AuthCacheTestKey0123456789abcdefgh';

describe('auth cache', () => {
  it('keeps no plaintext API key: it is keyed by the keyed hash', async () => {
    const store = new MemoryStore();
    await seedAccounts(store, [{ key: KEY, plan: 'free', allotment: 5 }], SECRET);
    const cache = new AuthCache(60_000);
    const account = await authenticate(store, SECRET, KEY, cache);
    expect(cache.get(KEY)).toBeNull();
    expect(cache.get(hashApiKey(KEY, SECRET))).toEqual(account);
  });
});
