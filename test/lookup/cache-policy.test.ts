// The cache policy (lookup/cache-policy.ts) decides every lifetime the lookup writes with: a home's
// entry, the address alias pointing at it, and an ambiguous address's memo. Checked on what a real
// lookup writes to the store, with lifetimes set apart so each write shows which one it took.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { authenticate, seedAccounts } from '../../src/accounts/index.js';
import { createCore } from '../../src/app.js';
import type { Collected, Collector } from '../../src/collector/types.js';
import { loadConfig } from '../../src/config.js';
import { LookupError, parseLocator, parseLookupOptions } from '../../src/contract/index.js';
import { ttlFor } from '../../src/lookup/cache-policy.js';
import { createRequestContext, lookupOne } from '../../src/lookup/index.js';
import { MemoryStore, type Store } from '../../src/store/index.js';

const config = loadConfig({ LOG_LEVEL: 'silent', CACHE_TTL_MS: '1234567', AMBIGUITY_MEMO_TTL_MS: '7654' });

const home = (zpid: string): Collected => ({
  property: { zpid, address: `${zpid} Main St, Springfield, IL 62701`, scrapedAt: '2026-01-01T00:00:00.000Z' } as Collected['property'],
  raw: { zpid },
  zpid,
  source: { provider: 'self_hosted', note: 'test' },
});

/** Resolves "1 Main St" to zpid 42, calls "2 Main St" ambiguous, and reads any home. */
const collector: Collector = {
  async resolveAddress(address) {
    if (address.input.startsWith('2 ')) throw new LookupError('address_ambiguous', { details: { candidate: { zpid: '7' } } });
    return { zpid: '42', path: '/homedetails/42_zpid/' };
  },
  read: async (target) => home(target.zpid ?? '1'),
};

/** The store, recording the lifetime of every cache write. */
function recording(store: Store): { store: Store; writes: Array<[string, string, number]> } {
  const writes: Array<[string, string, number]> = [];
  const ttlArg = { putEntry: 3, putAlias: 2, putMemo: 2 } as const;
  const proxy = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (typeof name === 'string' && name in ttlArg) writes.push([name, String(args[0]), args[ttlArg[name as keyof typeof ttlArg]] as number]);
        return value.apply(target, args);
      };
    },
  });
  return { store: proxy, writes };
}

async function lookupContext() {
  const memory = new MemoryStore();
  await seedAccounts(memory, [{ key: 'policy_key_0001', plan: 'free', allotment: 10 }], config.apiKeySecret);
  const { store, writes } = recording(memory);
  const core = createCore({ config, store, collector, logger: pino({ level: 'silent' }) });
  const account = await authenticate(memory, config.apiKeySecret, 'policy_key_0001');
  return { ctx: createRequestContext(core, account, { requestId: 'policy' }), writes };
}

describe('cache policy', () => {
  it('gives homes and aliases the cache lifetime, ambiguity memos their own', () => {
    expect(ttlFor(config, 'home')).toBe(1234567);
    expect(ttlFor(config, 'alias')).toBe(1234567);
    expect(ttlFor(config, 'ambiguity')).toBe(7654);
  });

  it('a live lookup by address writes its entry and its alias with those lifetimes', async () => {
    const { ctx, writes } = await lookupContext();
    const found = await lookupOne(ctx, parseLocator({ address: '1 Main St, Springfield, IL 62701' }), parseLookupOptions({}));
    expect(found.meta).toMatchObject({ credits: 1, cached: false });
    expect(found.meta.cache_key).toMatch(/^addr:/);
    expect(writes).toEqual([
      ['putEntry', 'zpid:42', 1234567],
      ['putAlias', found.meta.cache_key, 1234567],
    ]);
  });

  it('an ambiguous address is remembered for the memo lifetime', async () => {
    const { ctx, writes } = await lookupContext();
    await expect(lookupOne(ctx, parseLocator({ address: '2 Main St, Springfield, IL 62701' }), parseLookupOptions({}))).rejects.toMatchObject({ code: 'address_ambiguous' });
    expect(writes).toEqual([['putMemo', expect.stringMatching(/^addr:/), 7654]]);
  });
});
