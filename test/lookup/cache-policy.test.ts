// The cache policy (lookup/cache-policy.ts) decides every lifetime the lookup writes with: a home's
// entry (kept past its raw record for stale answers and change hints), the address alias pointing at
// it, and an ambiguous address's memo. Checked on what a real
// lookup writes to the store, with lifetimes set apart so each write shows which one it took.
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { seedAccounts } from '../../src/accounts/index.js';
import { buildApp } from '../../src/app.js';
import type { Collected, Collector } from '../../src/collector/types.js';
import { loadConfig } from '../../src/config.js';
import { LookupError } from '../../src/contract/index.js';
import { ttlFor } from '../../src/lookup/cache-policy.js';
import { MemoryStore, type Store } from '../../src/store/index.js';
import { everySection } from '../helpers/sections.js';

const config = loadConfig({
  LOG_LEVEL: 'silent',
  CACHE_TTL_MS: '1234567',
  STALE_TTL_MS: '1000',
  INCOMPLETE_TTL_MS: '4321',
  AMBIGUITY_MEMO_TTL_MS: '7654',
});

const home = (zpid: string): Collected => ({
  property: {
    zpid,
    address: `${zpid} Main St, Springfield, IL 62701`,
    scrapedAt: '2026-01-01T00:00:00.000Z',
  } as Collected['property'],
  raw: { zpid },
  zpid,
  source: { provider: 'self_hosted', note: 'test' },
  sections: everySection('present'),
});

/** Resolves "1 Main St" to zpid 42, calls "2 Main St" ambiguous, and reads any home. */
const collector: Collector = {
  async resolveAddress(address) {
    if (address.input.startsWith('2 '))
      throw new LookupError('address_ambiguous', { details: { candidate: { zpid: '7' } } });
    return { zpid: '42', path: '/homedetails/42_zpid/' };
  },
  read: async (target) => home(target.zpid ?? '1'),
};

/** The store, recording the lifetime of every cache write. */
function recording(store: Store): { store: Store; writes: Array<[string, string, ...number[]]> } {
  const writes: Array<[string, string, ...number[]]> = [];
  const ttlArg = { putEntry: 3, putAlias: 2, putMemo: 2 } as const;
  const proxy = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (typeof name === 'string' && name in ttlArg) {
          // putEntry's entry keep (its 5th argument) beside its raw record's lifetime.
          const lifetimes = args.slice(ttlArg[name as keyof typeof ttlArg]) as number[];
          writes.push([name, String(args[0]), ...lifetimes]);
        }
        return value.apply(target, args);
      };
    },
  });
  return { store: proxy, writes };
}

const apps: Array<{ close(): Promise<unknown> }> = [];
afterAll(() => Promise.all(apps.map((app) => app.close())));

/** The service in process over a recording store; `lookup` asks GET /v1/portal/property for an address. */
async function service(reader: Collector = collector) {
  const memory = new MemoryStore();
  const key = 'policy_key_0001';
  await seedAccounts(memory, [{ key, plan: 'free', allotment: 10 }], config.apiKeySecret);
  const { store, writes } = recording(memory);
  const app = await buildApp({ config, store, collector: reader, logger: pino({ level: 'silent' }) });
  apps.push(app);
  const lookup = async (address: string) => {
    const r = await app.inject({
      method: 'GET',
      url: `/v1/portal/property?address=${encodeURIComponent(address)}`,
      headers: { 'x-api-key': key },
    });
    return { status: r.statusCode, body: r.json() };
  };
  return { lookup, writes };
}

describe('cache policy', () => {
  it('gives homes the cache lifetime, their kept entries and aliases STALE_TTL_MS more, ambiguity memos their own', () => {
    expect(ttlFor(config, 'home')).toBe(1234567);
    expect(ttlFor(config, 'kept')).toBe(1235567);
    expect(ttlFor(config, 'alias')).toBe(1235567);
    expect(ttlFor(config, 'ambiguity')).toBe(7654);
    expect(ttlFor(config, 'incomplete')).toBe(4321);
  });

  describe('a record with a section in extraction_failed (docs/sections.md)', () => {
    const failed = { ...everySection('present'), schools: 'extraction_failed' } as const;
    const reading = (property: Partial<Collected['property']>): Collector => ({
      ...collector,
      read: async () => ({ ...home('42'), property: { ...home('42').property, ...property }, sections: failed }),
    });

    it('with its core fields: its raw record written for INCOMPLETE_TTL_MS (a hit that long), its text kept as the earlier snapshot; billed', async () => {
      const { lookup, writes } = await service(
        reading({ streetAddress: '42 Main St', city: 'Springfield', state: 'IL', price: 250_000 }),
      );
      const found = await lookup('1 Main St, Springfield, IL 62701');
      expect(found.body.meta).toMatchObject({ credits: 1, sections: failed });
      expect(writes).toEqual([
        ['putEntry', 'zpid:42', 4321, 1235567],
        ['putAlias', found.body.meta.cache_key, 1235567],
      ]);
    });

    it('without them (no price, no status): nothing written, not billed', async () => {
      const { lookup, writes } = await service(
        reading({ streetAddress: '42 Main St', city: 'Springfield', state: 'IL', price: null, homeStatus: null }),
      );
      const found = await lookup('1 Main St, Springfield, IL 62701');
      expect(found.status).toBe(200);
      expect(found.body.meta).toMatchObject({ credits: 0, cached: false, sections: failed });
      expect(writes).toEqual([]);
    });
  });

  it('a live lookup by address writes its entry and its alias with those lifetimes', async () => {
    const { lookup, writes } = await service();
    const found = await lookup('1 Main St, Springfield, IL 62701');
    expect(found.status).toBe(200);
    expect(found.body.meta).toMatchObject({ credits: 1, cached: false });
    expect(found.body.meta.cache_key).toMatch(/^addr:/);
    expect(writes).toEqual([
      ['putEntry', 'zpid:42', 1234567, 1235567],
      ['putAlias', found.body.meta.cache_key, 1235567],
    ]);
  });

  it('an ambiguous address is remembered for the memo lifetime', async () => {
    const { lookup, writes } = await service();
    const refused = await lookup('2 Main St, Springfield, IL 62701');
    expect(refused.body.error.code).toBe('address_ambiguous');
    expect(writes).toEqual([['putMemo', expect.stringMatching(/^addr:/), 7654]]);
  });
});
