// What a cache hit costs the service: the stored record sent as it is kept (no parse, no
// re-serialization), and an API key checked once per AUTH_CACHE_TTL_MS, not per request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeAccount, rotateKey } from '../../src/accounts/admin.js';
import { hashApiKey, seededAccountId } from '../../src/accounts/index.js';
import { MemoryStore } from '../../src/store/index.js';
import { switchableStore, type Switch } from '../graphql/switchable-store.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { everySection } from '../helpers/sections.js';

let svc: TestService;
let sw: Switch;
beforeAll(async () => {
  const wrapped = switchableStore(new MemoryStore());
  sw = wrapped.sw;
  svc = await startTestService({
    store: wrapped.store,
    env: { AUTH_CACHE_TTL_MS: '3600000' },
    accounts: {
      one: { key: 'test_hit_key_0001', plan: 'paid', included: 100 },
      two: { key: 'test_hit_key_0002', plan: 'paid', included: 100 },
    },
  });
});
afterAll(() => svc.close());

/** A cache hit (the home is put in the store below). */
const HIT = '/v1/portal/property?zpid=777000777';
const accountReads = () => sw.calls.get('getAccountByKeyHash') ?? 0;
const idOf = (key: string) => seededAccountId(hashApiKey(key, svc.config.apiKeySecret));

describe('a REST cache hit', () => {
  // Written as another instance could have written it: a number as `1.50` and a key order JSON.stringify
  // of a parsed object would not keep.
  const recordText = '{"zpid":"777000777","price":1.50,"address":"1 Verbatim Way, Springfield, IL 62701"}';
  beforeAll(async () => {
    await svc.store.putEntry(
      'zpid:777000777',
      {
        record: recordText,
        fetchedAt: '2026-03-01T12:00:00.000Z',
        source: { provider: 'self_hosted', note: 'planted by the test' },
        zpid: '777000777',
        sections: everySection('present'),
        storedAt: Date.now(),
      },
      null,
      60_000,
    );
  });

  it('sends the stored record text as it is kept, inside the envelope', async () => {
    const res = await svc.fetch(`${svc.url}/v1/portal/property?zpid=777000777`, {
      headers: { 'x-api-key': 'test_hit_key_0001' },
    });
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('x-cache')).toBe('HIT');
    expect(text.startsWith(`{"data":${recordText},"meta":{`)).toBe(true);
    expect(JSON.parse(text).meta).toMatchObject({ credits: 0, cached: true, cache_key: 'zpid:777000777' });
  });

  it('in a batch too, each item with its index', async () => {
    const res = await svc.fetch(`${svc.url}/v1/portal/batch`, {
      method: 'POST',
      headers: { 'x-api-key': 'test_hit_key_0001', 'content-type': 'application/json' },
      body: JSON.stringify({ items: [{ zpid: '777000777' }, { zpid: 'x' }] }),
    });
    const text = await res.text();
    expect(text).toContain(`{"index":0,"ok":true,"data":${recordText},"meta":{`);
    expect(JSON.parse(text).data[1]).toMatchObject({ index: 1, ok: false, error: { code: 'bad_param' } });
  });

  it('raw=true splices the raw record in as the last field', async () => {
    await svc.store.putEntry(
      'zpid:777000778',
      {
        record: '{"zpid":"777000778"}',
        fetchedAt: '2026-03-01T12:00:00.000Z',
        source: { provider: 'self_hosted', note: 'planted by the test' },
        zpid: '777000778',
        sections: everySection('present'),
        storedAt: Date.now(),
      },
      '{"deep":{"n":1}}',
      60_000,
    );
    const r = await svc.get('/v1/portal/property?zpid=777000778&raw=true', 'test_hit_key_0001');
    expect(r.body.data).toEqual({ zpid: '777000778', raw: { deep: { n: 1 } } });
  });
});

describe('API keys checked moments ago', () => {
  it('are not read from the store again', async () => {
    await svc.get('/v1/portal/property?zpid=777000777', 'test_hit_key_0002');
    const before = accountReads();
    for (let i = 0; i < 5; i++)
      expect((await svc.get('/v1/portal/property?zpid=777000777', 'test_hit_key_0002')).status).toBe(200);
    expect(accountReads()).toBe(before);
  });

  it('a refused key is never remembered', async () => {
    const before = accountReads();
    for (let i = 0; i < 3; i++) expect((await svc.get(HIT, 'test_hit_unknown_01')).status).toBe(401);
    expect(accountReads()).toBe(before + 3);
  });

  it('a rotated key is refused at once, and the new one works', async () => {
    expect((await svc.get(HIT, 'test_hit_key_0002')).status).toBe(200);
    const { key } = await rotateKey(svc.store, svc.config.apiKeySecret, idOf('test_hit_key_0002'));
    expect((await svc.get(HIT, 'test_hit_key_0002')).body.error.code).toBe('invalid_api_key');
    expect((await svc.get(HIT, key)).status).toBe(200);
  });

  it('a revoked key is refused at once', async () => {
    expect((await svc.get(HIT, 'test_hit_key_0001')).status).toBe(200);
    await revokeAccount(svc.store, idOf('test_hit_key_0001'));
    expect((await svc.get(HIT, 'test_hit_key_0001')).body.error.code).toBe('invalid_api_key');
  });
});
