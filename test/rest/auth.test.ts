// Authentication (spec 5) comes before validation and never costs anything.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ accounts: { free: { key: 'test_free_key_0001', plan: 'free' } } });
});
afterAll(() => svc.close());

describe('x-api-key', () => {
  it('missing → 401 missing_api_key', async () => {
    const r = await svc.get('/v1/portal/property?zpid=2146993218', null);
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('missing_api_key');
  });

  it('empty → 401 missing_api_key', async () => {
    const r = await svc.get('/v1/portal/property?zpid=2146993218', '');
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('missing_api_key');
  });

  it('unknown → 401 invalid_api_key', async () => {
    const r = await svc.get('/v1/portal/property?zpid=2146993218', 'not_a_real_key');
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('invalid_api_key');
  });

  it('is checked before validation: a bad key with bad params is still a 401', async () => {
    const r = await svc.get('/v1/portal/property?zpid=abc', 'not_a_real_key');
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('invalid_api_key');
  });

  it('is checked before the batch body is read', async () => {
    const r = await svc.post('/v1/portal/batch', 'not json at all', null);
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('missing_api_key');
  });

  it('a revoked key is refused', async () => {
    const acct = (await svc.store.listAccounts())[0]!;
    await svc.store.putAccount({ ...acct, revoked: true });
    const r = await svc.get('/v1/account', svc.keys.free);
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('invalid_api_key');
    await svc.store.putAccount({ ...acct, revoked: false });
  });

  it('no upstream request was made by any of these', () => {
    expect(svc.replay.requests).toEqual([]);
  });
});
