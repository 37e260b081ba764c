// GET /readyz says what it checked (issue 12): the store, the page workers, the collector's set-up.
// Only the store decides readiness; a collector that cannot read live leaves the service `degraded`.
import { afterEach, describe, expect, it } from 'vitest';
import { LookupError } from '../../src/contract/index.js';
import { MemoryStore } from '../../src/store/index.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService | undefined;
afterEach(async () => {
  await svc?.close();
  svc = undefined;
});

describe('/readyz', () => {
  it('live lookups off: 200 degraded, the collector check saying why', async () => {
    svc = await startTestService({ env: { LIVE_LOOKUPS_ENABLED: 'false' } });
    const r = await svc.get('/readyz', null);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      status: 'degraded',
      store: 'memory',
      checks: {
        store: { ok: true, kind: 'memory' },
        page_workers: { ok: true, configured: false },
        collector: {
          ok: false,
          live_lookups: false,
          self_hosted: false,
          fallback: null,
          code: 'live_lookups_disabled',
          reason: 'LIVE_LOOKUPS_ENABLED is false',
        },
      },
    });
  });

  it('a store that does not answer: 503 store_unavailable with retry-after, every check in details', async () => {
    const down = Object.assign(Object.create(new MemoryStore()) as MemoryStore, {
      ping: () => Promise.reject(new LookupError('store_unavailable', { details: { reason: 'store_reset' } })),
    });
    svc = await startTestService({ store: down });
    const r = await svc.get('/readyz', null);
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('30');
    expect(r.body.error.code).toBe('store_unavailable');
    expect(r.body.error.details).toMatchObject({
      reason: 'store_reset',
      checks: {
        store: { ok: false, kind: 'memory', code: 'store_unavailable', reason: 'store_reset' },
        page_workers: { ok: true, configured: true, closed: false },
        collector: { ok: true, self_hosted: true },
      },
    });
    expect(r.body.meta.request_id).toBe(r.headers.get('x-request-id'));
  });
});
